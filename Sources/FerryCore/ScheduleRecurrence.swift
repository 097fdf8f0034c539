import Foundation

/// When a schedule ticks: every fixed interval (ticks at whole multiples of it since the Unix epoch, so `1h`
/// ticks on the hour whatever the time it was added), or on a cron expression read on the wall clock of a zone.
///
/// Cron in a zone with daylight saving time: a tick whose wall time does not exist (spring forward) fires once at
/// the first instant after the gap; a wall time that happens twice (fall back) fires once, at its first
/// occurrence.
public enum ScheduleRecurrence: Sendable, Hashable, CustomStringConvertible {
    case every(seconds: Int64)
    case cron(CronExpression, zone: TimeZone)

    /// The tick strictly after `date`, or nil when the expression never matches again.
    public func next(after date: Date) -> Date? {
        let after = Int64(date.timeIntervalSince1970.rounded(.down))
        switch self {
        case .every(let seconds):
            let index = after >= 0 ? after / seconds : (after - seconds + 1) / seconds
            return Date(timeIntervalSince1970: Double((index + 1) * seconds))
        case .cron(let expression, let zone):
            var wall = after + Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(after)))) + 1
            // Candidates are walked in wall-clock order; in a repeated hour some map to instants before `after`.
            for _ in 0..<10_000 {
                guard let minute = expression.nextWallMinute(atOrAfter: wall) else { return nil }
                let instant = Self.instant(wall: minute, zone: zone)
                if instant > after { return Date(timeIntervalSince1970: Double(instant)) }
                wall = minute + 60
            }
            return nil
        }
    }

    /// What to fire when the schedule was due at `due` and it is now `now` (`due <= now`): the latest tick not
    /// after `now`, and how many earlier ticks (from `due` on) are skipped, so downtime catches up once.
    public func catchUp(due: Date, now: Date) -> (tick: Date, missed: Int64) {
        switch self {
        case .every(let seconds):
            let first = Int64(due.timeIntervalSince1970.rounded(.down))
            let latest = Int64(now.timeIntervalSince1970.rounded(.down))
            let last = max(first, latest - ((latest % seconds) + seconds) % seconds)
            return (Date(timeIntervalSince1970: Double(last)), (last - first) / seconds)
        case .cron:
            var tick = due
            var missed: Int64 = 0
            while let following = next(after: tick), following <= now {
                tick = following
                missed += 1
            }
            return (tick, missed)
        }
    }

    /// The instant a wall-clock time (seconds since 1970-01-01T00:00 local) denotes in `zone`: its first
    /// occurrence when the clock repeats it, the end of the gap when the clock skips it.
    static func instant(wall: Int64, zone: TimeZone) -> Int64 {
        func offset(_ t: Int64) -> Int64 { Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(t)))) }
        // Zones change offset at most once a day: the offsets a day either side are the only candidates.
        let candidates = Set([wall - offset(wall - 86_400), wall - offset(wall + 86_400)]).sorted()
        if let valid = candidates.first(where: { $0 + offset($0) == wall }) { return valid }
        // In a gap: the transition lies between the two candidates; find its first second.
        var low = candidates.first!
        var high = candidates.last!
        let before = offset(low)
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if offset(middle) == before { low = middle } else { high = middle }
        }
        return high
    }

    /// Parses `--every`: a whole number of seconds, minutes, hours or days (`30s`, `15m`, `1h`, `1d`), or a sum such
    /// as `1h30m`.
    public static func parseInterval(_ text: String) -> Int64? {
        var total: Int64 = 0
        var digits = ""
        var sawUnit = false
        for character in text.trimmingCharacters(in: .whitespaces).lowercased() {
            if character.isASCII && character.isNumber {
                digits.append(character)
                continue
            }
            guard let amount = Int64(digits), digits.count <= 9 else { return nil }
            let scale: Int64
            switch character {
            case "s": scale = 1
            case "m": scale = 60
            case "h": scale = 3600
            case "d": scale = 86_400
            default: return nil
            }
            total += amount * scale
            digits = ""
            sawUnit = true
        }
        guard sawUnit, digits.isEmpty, total > 0 else { return nil }
        return total
    }

    /// `1h30m`, `15m`, `1d`: the shortest spelling `parseInterval` reads back.
    public static func formatInterval(_ seconds: Int64) -> String {
        var rest = seconds
        var text = ""
        for (unit, scale) in [("d", Int64(86_400)), ("h", 3600), ("m", 60), ("s", 1)] where rest >= scale {
            text += "\(rest / scale)\(unit)"
            rest %= scale
        }
        return text.isEmpty ? "0s" : text
    }

    public var description: String {
        switch self {
        case .every(let seconds): return "every " + Self.formatInterval(seconds)
        case .cron(let expression, let zone): return "cron \(expression.text) (\(zone.identifier))"
        }
    }
}
