import FerryCore
import Foundation

/// Times as Graph writes them (ISO 8601, UTC; fractions of a second optional).
enum OneDriveTime {
    static func format(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down)))
    }

    static func format(nanoseconds: Int64) -> String {
        format(Date(timeIntervalSince1970: Double(nanoseconds / 1_000_000_000)))
    }

    static func parse(_ text: String?) -> Date? {
        InternetTime.parse(text)
    }
}
