/// A W3C Trace Context `traceparent` (version 00): the trace a job belongs to and the span that enqueued it.
///
/// Ferry keeps it in the job's `enqueued` event; every attempt's span joins that trace. Only the syntax is checked
/// (lowercase hex, non-zero ids), as the W3C recommendation asks of a receiver.
public struct TraceParent: Sendable, Hashable, CustomStringConvertible {
    /// 32 lowercase hex digits, not all zero.
    public var traceID: String
    /// 16 lowercase hex digits, not all zero: the parent span.
    public var spanID: String
    /// 2 hex digits; bit 0 is "sampled".
    public var flags: String

    /// The shape a `traceparent` must have, for error messages.
    public static let format = "00-<32 hex trace id>-<16 hex span id>-<2 hex flags>, lowercase, ids not all zero"

    /// Parses `00-<trace id>-<span id>-<flags>`; nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "00",
            Self.isHex(parts[1], count: 32), Self.isHex(parts[2], count: 16), Self.isHex(parts[3], count: 2),
            parts[1].contains(where: { $0 != "0" }), parts[2].contains(where: { $0 != "0" })
        else { return nil }
        traceID = String(parts[1])
        spanID = String(parts[2])
        flags = String(parts[3])
    }

    /// A trace context from parts already known to be valid (lowercase hex of the right lengths); sampled by default.
    public init(traceID: String, spanID: String, flags: String = "01") {
        self.traceID = traceID
        self.spanID = spanID
        self.flags = flags
    }

    /// The `traceparent` header value.
    public var description: String { "00-\(traceID)-\(spanID)-\(flags)" }

    private static func isHex(_ text: Substring, count: Int) -> Bool {
        text.utf8.count == count && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
