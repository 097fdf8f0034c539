import Foundation

extension Date {
    /// RFC 3339 in UTC with milliseconds, as archive headers and manifests write times.
    var archiveTimestamp: String {
        formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    init?(archiveTimestamp text: String) {
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) {
            self = date
        } else if let date = try? Date.ISO8601FormatStyle().parse(text) {
            self = date
        } else {
            return nil
        }
    }
}
