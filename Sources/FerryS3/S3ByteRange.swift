/// The part of an object a ranged `GetObject` asks for (`Range: bytes=…`).
public enum S3ByteRange: Sendable, Hashable {
    /// From `offset` to the end: `bytes=N-` (resuming a download).
    case from(Int64)
    /// The given bytes, both ends included: `bytes=N-M`.
    case bytes(ClosedRange<Int64>)
    /// The last `count` bytes: `bytes=-N`.
    case suffix(Int64)

    /// The `Range` header value.
    public var headerValue: String {
        switch self {
        case .from(let offset): "bytes=\(offset)-"
        case .bytes(let range): "bytes=\(range.lowerBound)-\(range.upperBound)"
        case .suffix(let count): "bytes=-\(count)"
        }
    }

    var isValid: Bool {
        switch self {
        case .from(let offset): offset >= 0
        case .bytes(let range): range.lowerBound >= 0
        case .suffix(let count): count > 0
        }
    }
}
