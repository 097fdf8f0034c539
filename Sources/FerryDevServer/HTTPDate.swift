import FerryCore

/// HTTP dates (`Sun, 06 Nov 1994 08:49:37 GMT`, the IMF-fixdate of RFC 9110) for
/// `Last-Modified`, `If-Range` and `If-Modified-Since`. Plain calendar arithmetic in UTC, so
/// formatting thousands of responses needs no `DateFormatter`.
enum HTTPDate {
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Formats whole seconds since 1970.
    static func format(epochSeconds: Int64) -> String {
        let t = UTCDateTime(secondsSince1970: epochSeconds)
        let pad = UTCDateTime.pad
        return "\(weekdays[t.weekday]), \(pad(t.day, 2)) \(months[t.month - 1]) \(t.year) "
            + "\(pad(t.hour, 2)):\(pad(t.minute, 2)):\(pad(t.second, 2)) GMT"
    }

    /// Parses an IMF-fixdate; other (obsolete) formats are `nil`, which callers treat as "no match".
    static func parse(_ text: String) -> Int64? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[0].hasSuffix(","), parts[5] == "GMT",
              let day = Int(parts[1]), let monthIndex = months.firstIndex(of: String(parts[2])),
              let year = Int(parts[3])
        else { return nil }
        let clock = parts[4].split(separator: ":")
        guard clock.count == 3, let hour = Int(clock[0]), let minute = Int(clock[1]), let second = Int(clock[2]),
              (1...31).contains(day), (0..<24).contains(hour), (0..<60).contains(minute), (0..<61).contains(second)
        else { return nil }
        return UTCDateTime(year: year, month: monthIndex + 1, day: day, hour: hour, minute: minute, second: second).secondsSince1970
    }
}
