import Foundation

/// The two time stamps SigV4 uses, in UTC: `20150830T123600Z` (`x-amz-date`) and `20150830` (the scope's day).
public struct SigV4Date: Sendable, Hashable {
    /// ISO 8601 basic format, `YYYYMMDD'T'HHMMSS'Z'`.
    public let timestamp: String
    /// `YYYYMMDD`.
    public var day: String { String(timestamp.prefix(8)) }

    public init(_ date: Date) {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        let (days, secondOfDay) = seconds.quotientAndRemainder(dividingBy: 86_400)
        let (dayNumber, second) = secondOfDay < 0 ? (days - 1, secondOfDay + 86_400) : (days, secondOfDay)
        let (year, month, day) = Self.civil(fromDays: dayNumber)
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        timestamp = pad(year, 4) + pad(month, 2) + pad(day, 2) + "T" + pad(second / 3600, 2) + pad(second / 60 % 60, 2) + pad(second % 60, 2) + "Z"
    }

    /// Proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's `civil_from_days`),
    /// so signing needs no calendar or locale.
    private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
