import Foundation

/// Reads an HTTP `Retry-After` value: delay seconds (`120`) or an HTTP date (`Wed, 21 Oct 2026 07:28:00 GMT`).
public enum HTTPRetryAfter {
    /// Seconds to wait from `now` (never negative), or `nil` when the value is neither form.
    public static func seconds(_ value: String?, now: Date = Date()) -> Double? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Double(value), seconds.isFinite { return max(0, seconds) }
        if let date = RemoteTimestamp.http(value) { return max(0, date.timeIntervalSince(now)) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        // The obsolete RFC 850 and asctime forms HTTP still allows.
        for format in ["EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: value) { return max(0, date.timeIntervalSince(now)) }
        }
        return nil
    }
}
