import FerryHTTP
/// A `Content-Range: bytes FIRST-LAST/LENGTH` header of a 206 answer.
public struct S3ContentRange: Sendable, Hashable {
    /// Offset of the first byte in the body.
    public var first: Int64
    /// Offset of the last byte in the body (inclusive).
    public var last: Int64
    /// Size of the whole object, `nil` when the server sent `*`.
    public var completeLength: Int64?

    public init(first: Int64, last: Int64, completeLength: Int64?) {
        self.first = first
        self.last = last
        self.completeLength = completeLength
    }

    /// Parses the header value; `nil` when it is not of that form.
    public init?(headerValue: String) {
        let trimmed = headerValue.trimmingSpaces
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = trimmed.dropFirst(6).trimmingPrefix(" ")
        guard let dash = spec.firstIndex(of: "-"), let slash = spec.firstIndex(of: "/"), dash < slash,
              let first = Int64(spec[..<dash]), let last = Int64(spec[spec.index(after: dash)..<slash]), first >= 0, last >= first
        else { return nil }
        let total = spec[spec.index(after: slash)...]
        if total == "*" {
            completeLength = nil
        } else {
            guard let length = Int64(total), length > last else { return nil }
            completeLength = length
        }
        self.first = first
        self.last = last
    }

    /// Bytes in the body.
    public var count: Int64 { last - first + 1 }
}
