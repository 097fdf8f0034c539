import FerryCore
import Foundation

/// Dropbox timestamps: `%Y-%m-%dT%H:%M:%SZ`, UTC, whole seconds.
enum DropboxTimestamp {
    /// Formats `date` in UTC, dropping fractions of a second (Dropbox refuses them).
    static func format(_ date: Date) -> String {
        let t = UTCDateTime(secondsSince1970: Int64(date.timeIntervalSince1970.rounded(.down)))
        let pad = UTCDateTime.pad
        return "\(pad(t.year, 4))-\(pad(t.month, 2))-\(pad(t.day, 2))T\(pad(t.hour, 2)):\(pad(t.minute, 2)):\(pad(t.second, 2))Z"
    }
}
