import FerryCore
import Foundation

/// Times as Drive takes them (RFC 3339 with milliseconds, UTC).
enum GoogleDriveTime {
    static func format(nanoseconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        // Milliseconds are what Drive keeps.
        return formatter.string(from: Date(timeIntervalSince1970: Double(nanoseconds / 1_000_000) / 1000))
    }

    static func parse(_ text: String?) -> Date? {
        InternetTime.parse(text)
    }
}
