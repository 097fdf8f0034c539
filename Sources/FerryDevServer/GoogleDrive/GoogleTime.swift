import FerryCore
import Foundation

/// RFC 3339 times as Drive writes them (`2025-01-02T03:04:05.000Z`), and as clients send them (with or without a
/// fraction, `Z` or an offset).
enum GoogleTime {
    static func format(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }

    static func parse(_ text: String) -> Date? {
        InternetTime.parse(text)
    }
}
