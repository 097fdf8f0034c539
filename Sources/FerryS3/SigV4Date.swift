import FerryCore
import Foundation

/// The two time stamps SigV4 uses, in UTC: `20150830T123600Z` (`x-amz-date`) and `20150830` (the scope's day).
public struct SigV4Date: Sendable, Hashable {
    /// ISO 8601 basic format, `YYYYMMDD'T'HHMMSS'Z'`.
    public let timestamp: String
    /// `YYYYMMDD`.
    public var day: String { String(timestamp.prefix(8)) }

    /// Signing needs no calendar or locale: plain UTC arithmetic.
    public init(_ date: Date) {
        let t = UTCDateTime(secondsSince1970: Int64(date.timeIntervalSince1970.rounded(.down)))
        let pad = UTCDateTime.pad
        timestamp = pad(t.year, 4) + pad(t.month, 2) + pad(t.day, 2) + "T" + pad(t.hour, 2) + pad(t.minute, 2) + pad(t.second, 2) + "Z"
    }
}
