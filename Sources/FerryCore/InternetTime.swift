import Foundation

/// RFC 3339 times with a zone (`2025-01-02T03:04:05.000Z`, `…+01:00`), fractions of a second optional: how the
/// remote APIs state modification times. Remote input: a text longer than 64 bytes is no time.
public enum InternetTime {
    public static func parse(_ text: String?) -> Date? {
        guard let text, text.utf8.count <= 64 else { return nil }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
