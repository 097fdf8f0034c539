/// A UTC date and time to the second, from or to whole seconds since 1970, by plain calendar arithmetic
/// (``CivilTime``'s civil-day algorithms): wire formats (Dropbox, SigV4, HTTP dates) are formatted for every
/// request, and need neither a `DateFormatter` nor a calendar or locale.
public struct UTCDateTime: Sendable, Hashable {
    public let year: Int
    public let month: Int
    public let day: Int
    public let hour: Int
    public let minute: Int
    public let second: Int

    /// The time `seconds` after 1970-01-01T00:00:00Z (negative: before it).
    public init(secondsSince1970 seconds: Int64) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = Int(seconds - days * 86_400)
        (year, month, day) = CivilTime.civil(fromDays: Int(days))
        (hour, minute, second) = (secondOfDay / 3600, secondOfDay / 60 % 60, secondOfDay % 60)
    }

    /// From its fields, which must name a real date and time (callers check the ranges they parse).
    public init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        (self.year, self.month, self.day, self.hour, self.minute, self.second) = (year, month, day, hour, minute, second)
    }

    /// Seconds since 1970-01-01T00:00:00Z.
    public var secondsSince1970: Int64 {
        Int64(CivilTime.days(year: year, month: month, day: day)) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    /// 0 = Sunday … 6 = Saturday.
    public var weekday: Int { CivilTime.weekday(year: year, month: month, day: day) }

    /// `value` in decimal, left-padded with zeros to `width` digits.
    public static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
}
