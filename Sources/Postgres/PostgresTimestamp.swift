import Foundation

/// A `timestamptz` with PostgreSQL's exact microsecond resolution.
///
/// `Date` is a `Double` and cannot hold every microsecond exactly; comparisons of stored times (for example when
/// replaying a projection) use this type instead.
public struct PostgresTimestamp: Hashable, Comparable, Sendable, PostgresBindable, CustomStringConvertible {
    /// Microseconds since 1970-01-01 00:00:00 UTC.
    public var microseconds: Int64

    public init(microseconds: Int64) { self.microseconds = microseconds }

    public init(_ date: Date) {
        self.microseconds = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
    }

    public var date: Date { Date(timeIntervalSince1970: Double(microseconds) / 1_000_000) }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.microseconds < rhs.microseconds }

    /// ISO 8601 in UTC with microseconds, e.g. `2026-11-21T18:30:00.123456Z`; PostgreSQL accepts it as input.
    public var postgresText: String? { iso8601 }

    public var description: String { iso8601 }

    public var iso8601: String {
        let (days, micros) = microseconds.floorDivided(by: 86_400_000_000)
        let (year, month, day) = Self.civilFromDays(days)
        let seconds = micros / 1_000_000
        let fraction = micros % 1_000_000
        let hh = seconds / 3600, mm = (seconds / 60) % 60, ss = seconds % 60
        var text = "\(Self.pad(year, 4))-\(Self.pad(month, 2))-\(Self.pad(day, 2))T"
        text += "\(Self.pad(hh, 2)):\(Self.pad(mm, 2)):\(Self.pad(ss, 2))"
        if fraction != 0 { text += "." + Self.pad(fraction, 6) }
        return text + "Z"
    }

    /// Parses PostgreSQL's ISO output (`2026-11-21 18:30:00.123456+00`, any offset) or ISO 8601 (`T`, `Z`).
    public init?(parsing text: String) {
        let bytes = Array(text.utf8)
        var index = 0
        func number(_ count: Int) -> Int64? {
            guard index + count <= bytes.count else { return nil }
            var value: Int64 = 0
            for i in index..<(index + count) {
                let b = bytes[i]
                guard b >= 48 && b <= 57 else { return nil }
                value = value * 10 + Int64(b - 48)
            }
            index += count
            return value
        }
        func expect(_ set: String) -> Bool {
            guard index < bytes.count, set.utf8.contains(bytes[index]) else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
            expect(" T"), let hour = number(2), expect(":"), let minute = number(2), expect(":"),
            let second = number(2)
        else { return nil }
        guard (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        var micros: Int64 = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var digits = 0
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                if digits < 6 { micros = micros * 10 + Int64(bytes[index] - 48) }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            for _ in 0..<max(0, 6 - digits) { micros *= 10 }
        }
        var offsetSeconds: Int64 = 0
        if index < bytes.count {
            if bytes[index] == UInt8(ascii: "Z") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                let sign: Int64 = bytes[index] == UInt8(ascii: "-") ? -1 : 1
                index += 1
                guard let oh = number(2) else { return nil }
                var om: Int64 = 0
                var os: Int64 = 0
                if index < bytes.count, bytes[index] == UInt8(ascii: ":") { index += 1 }
                if index < bytes.count, let m = number(2) { om = m }
                if index < bytes.count, bytes[index] == UInt8(ascii: ":") { index += 1 }
                if index < bytes.count, let s = number(2) { os = s }
                offsetSeconds = sign * (oh * 3600 + om * 60 + os)
            } else {
                return nil
            }
        }
        guard index == bytes.count else { return nil }
        let days = Self.daysFromCivil(year, month, day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        self.microseconds = seconds * 1_000_000 + micros
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let s = String(value)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    // Howard Hinnant's civil-date algorithms: exact for the proleptic Gregorian calendar.
    static func daysFromCivil(_ y0: Int64, _ m: Int64, _ d: Int64) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civilFromDays(_ z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }
}

extension Int64 {
    fileprivate func floorDivided(by divisor: Int64) -> (Int64, Int64) {
        var q = self / divisor
        var r = self % divisor
        if r < 0 {
            q -= 1
            r += divisor
        }
        return (q, r)
    }
}
