/// What a failed call to an HTTP service records, the same for every service's error type: its code (the service's
/// own enum) and the details around it. ``HTTPServiceFailure`` exposes each field on the error itself.
public struct HTTPFailure<Code: Hashable & Sendable>: Sendable, Hashable {
    /// What kind of failure this is.
    public var code: Code
    /// HTTP status of the answer, `nil` when there was none (transport, timeout).
    public var httpStatus: Int?
    /// The service's own name for the failure (an error reason or code, or the OAuth `error`), when it gave one.
    public var reason: String?
    /// Seconds to wait before retrying, from `Retry-After` (or the service's own field for it).
    public var retryAfter: Double?
    /// A short, safe explanation, already scrubbed of secrets.
    public var summary: String
    /// Whether the call failed because the surrounding task was cancelled (reported as a transport failure).
    public var isCancellation: Bool

    /// Creates the record; `summary` must already be free of secrets.
    public init(
        code: Code, httpStatus: Int? = nil, reason: String? = nil, retryAfter: Double? = nil, summary: String = "",
        isCancellation: Bool = false
    ) {
        self.code = code
        self.httpStatus = httpStatus
        self.reason = reason
        self.retryAfter = retryAfter
        self.summary = summary
        self.isCancellation = isCancellation
    }
}
