import Foundation

/// Parses the times `--run-at` and `run_at` accept.
public enum ScheduleTime {
    /// Accepts `now`, a delay (`+90s`, `+15m`, `+2h`, `+1d`) or an ISO 8601 time with a zone
    /// (`2026-11-21T18:00:00Z`, `2026-11-21T19:00:00+01:00`, fractional seconds allowed).
    public static func parse(_ text: String, now: Date) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed == "now" { return now }
        if trimmed.hasPrefix("+"), let unit = trimmed.last, let amount = Double(trimmed.dropFirst().dropLast()),
            amount >= 0, amount.isFinite
        {
            let scale: Double
            switch unit {
            case "s": scale = 1
            case "m": scale = 60
            case "h": scale = 3600
            case "d": scale = 86_400
            default: return nil
            }
            return now.addingTimeInterval(amount * scale)
        }
        let withFraction = ISO8601DateFormatter()
        withFraction.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = withFraction.date(from: trimmed) { return date }
        let plain = ISO8601DateFormatter()
        plain.formatOptions = [.withInternetDateTime]
        return plain.date(from: trimmed)
    }

    /// Parses a point in the past: an age (`30d`, `12h`, `15m`, `90s`, `0s` meaning that long before `now`) or an
    /// ISO 8601 time with a zone. Used by `--finished-before`, `--keep` and `--since`.
    public static func parseAgo(_ text: String, now: Date) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let unit = trimmed.last, "smhd".contains(unit), let amount = Double(trimmed.dropLast()), amount >= 0,
            amount.isFinite
        {
            let scale: Double = unit == "s" ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : 86_400
            return now.addingTimeInterval(-amount * scale)
        }
        guard !trimmed.hasPrefix("+"), trimmed != "now" else { return nil }
        return parse(trimmed, now: now)
    }

    /// ISO 8601 in UTC with microseconds, the form stored in events.
    public static func iso8601(_ date: Date) -> String {
        let micros = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        let seconds = Date(timeIntervalSince1970: Double(micros.quotient(1_000_000)))
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        var text = formatter.string(from: seconds)
        let fraction = micros.remainderPositive(1_000_000)
        if fraction != 0 {
            let digits = String(fraction)
            text.removeLast()  // "Z"
            text += "." + String(repeating: "0", count: 6 - digits.count) + digits + "Z"
        }
        return text
    }
}

extension Int64 {
    fileprivate func quotient(_ divisor: Int64) -> Int64 {
        self >= 0 ? self / divisor : -((-self + divisor - 1) / divisor)
    }

    fileprivate func remainderPositive(_ divisor: Int64) -> Int64 {
        let r = self % divisor
        return r < 0 ? r + divisor : r
    }
}
