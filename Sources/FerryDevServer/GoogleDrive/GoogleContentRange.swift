import Foundation

/// A session PUT's `Content-Range`: `bytes START-END/TOTAL` (a chunk; `TOTAL` may be `*` while unknown) or
/// `bytes */TOTAL` (a status query).
struct GoogleContentRange: Sendable, Equatable {
    /// First byte of the chunk; `nil` for a status query.
    var start: Int64?
    /// Last byte (inclusive).
    var end: Int64?
    var total: Int64?

    init?(_ header: String) {
        let value = header.trimmingCharacters(in: [" "])
        guard value.hasPrefix("bytes "), let slash = value.firstIndex(of: "/") else { return nil }
        let span = value[value.index(value.startIndex, offsetBy: 6)..<slash].trimmingCharacters(in: [" "])
        let totalText = value[value.index(after: slash)...]
        if totalText != "*" {
            guard let total = Int64(totalText), total >= 0 else { return nil }
            self.total = total
        }
        if span == "*" { return }
        let bounds = span.split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let start = Int64(bounds[0]), let end = Int64(bounds[1]), start >= 0, end >= start else { return nil }
        if let total, end >= total { return nil }
        self.start = start
        self.end = end
    }

    init(start: Int64?, end: Int64?, total: Int64?) {
        self.start = start
        self.end = end
        self.total = total
    }

    var length: Int64? { start.flatMap { start in end.map { $0 - start + 1 } } }
    /// The chunk that completes the upload.
    var isFinal: Bool { end != nil && total != nil && end! + 1 == total! }
}
