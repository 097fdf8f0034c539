import Foundation

/// Modification times as remote services send them, read without a locale or a formatter: an HTTP date
/// (`Last-Modified: Wed, 21 Oct 2026 07:28:00 GMT`) or ISO 8601 in UTC (Dropbox's `client_modified`
/// `2026-10-21T07:28:00Z`, S3 listings' `2026-10-21T07:28:00.000Z`). Whole seconds: what every one of them carries.
public enum RemoteTimestamp {
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// An IMF-fixdate (`Wed, 21 Oct 2026 07:28:00 GMT`), or `nil` when `text` is not one.
    public static func http(_ text: String?) -> Date? {
        guard let text else { return nil }
        let parts = text.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 6, parts[0].hasSuffix(","), parts[5] == "GMT",
            let day = Int(parts[1]), let monthIndex = months.firstIndex(where: { $0 == parts[2] }), let year = Int(parts[3]),
            let time = clock(parts[4])
        else { return nil }
        return date(year: year, month: monthIndex + 1, day: day, time)
    }

    /// `YYYY-MM-DDTHH:MM:SS[.fraction]Z`, or `nil` when `text` is not that (fractions are dropped).
    public static func iso8601(_ text: String?) -> Date? {
        guard let text, text.hasSuffix("Z"), let t = text.firstIndex(of: "T") else { return nil }
        let day = text[..<t].split(separator: "-", omittingEmptySubsequences: false)
        var clockText = text[text.index(after: t)..<text.index(before: text.endIndex)]
        if let dot = clockText.firstIndex(of: ".") {
            guard clockText[clockText.index(after: dot)...].allSatisfy(\.isASCIIDigit) else { return nil }
            clockText = clockText[..<dot]
        }
        guard day.count == 3, day[0].count == 4, let year = Int(day[0]), let month = Int(day[1]), let dayOfMonth = Int(day[2]),
            let time = clock(clockText)
        else { return nil }
        return date(year: year, month: month, day: dayOfMonth, time)
    }

    private static func clock(_ text: Substring) -> (hour: Int, minute: Int, second: Int)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCIIDigit) }),
            let hour = Int(parts[0]), let minute = Int(parts[1]), let second = Int(parts[2]),
            hour < 24, minute < 60, second < 61
        else { return nil }
        return (hour, minute, min(second, 59))
    }

    private static func date(year: Int, month: Int, day: Int, _ time: (hour: Int, minute: Int, second: Int)) -> Date? {
        guard (1970...9999).contains(year), (1...12).contains(month), (1...CivilTime.daysIn(year: year, month: month)).contains(day) else {
            return nil
        }
        let civil = UTCDateTime(year: year, month: month, day: day, hour: time.hour, minute: time.minute, second: time.second)
        return Date(timeIntervalSince1970: TimeInterval(civil.secondsSince1970))
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
