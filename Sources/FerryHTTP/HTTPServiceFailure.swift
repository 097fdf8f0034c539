/// The error type of an HTTP service client: an ``HTTPFailure`` with a code of its own, each of its fields exposed
/// on the error, and what follows from them once for all services: the safe description, which codes are worth a retry
/// and how text taken from an answer is made safe.
///
/// ``description`` is safe to log as long as ``summary`` (and ``descriptionTag``) are: build summaries with
/// ``safe(_:secrets:)``.
public protocol HTTPServiceFailure: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is; callers match on it, never on summary text.
    associatedtype Code: RawRepresentable<String>, Hashable, Sendable

    /// The codes worth retrying later (server errors, transport failures, timeouts, throttling).
    static var retryableCodes: Set<Code> { get }
    /// Code, status, reason, wait, summary and cancellation.
    var failure: HTTPFailure<Code> { get set }
    /// The service's detail shown in brackets in ``description``. Default: ``reason``.
    var descriptionTag: String? { get }
    /// Creates an error from its record; `failure.summary` must already be free of secrets.
    init(_ failure: HTTPFailure<Code>)
}

extension HTTPServiceFailure {
    /// Longest excerpt of a response body kept in a summary.
    public static var summaryLimit: Int { 300 }

    /// Creates an error; `summary` must already be free of secrets.
    public init(
        code: Code, httpStatus: Int? = nil, reason: String? = nil, retryAfter: Double? = nil, summary: String = "",
        isCancellation: Bool = false
    ) {
        self.init(
            HTTPFailure(
                code: code, httpStatus: httpStatus, reason: reason, retryAfter: retryAfter, summary: summary,
                isCancellation: isCancellation))
    }

    /// What kind of failure this is.
    public var code: Code {
        get { failure.code }
        set { failure.code = newValue }
    }

    /// HTTP status of the answer, `nil` when there was none.
    public var httpStatus: Int? {
        get { failure.httpStatus }
        set { failure.httpStatus = newValue }
    }

    /// The service's own name for the failure, or the OAuth `error`.
    public var reason: String? {
        get { failure.reason }
        set { failure.reason = newValue }
    }

    /// Seconds to wait before retrying, from `Retry-After`.
    public var retryAfter: Double? {
        get { failure.retryAfter }
        set { failure.retryAfter = newValue }
    }

    /// A short, safe explanation, already scrubbed of secrets.
    public var summary: String {
        get { failure.summary }
        set { failure.summary = newValue }
    }

    /// Whether the call failed because the surrounding task was cancelled (reported as a transport failure).
    public var isCancellation: Bool {
        get { failure.isCancellation }
        set { failure.isCancellation = newValue }
    }

    public var descriptionTag: String? { reason }

    /// Worth retrying later: one of ``retryableCodes``.
    public var isRetryable: Bool { Self.retryableCodes.contains(code) }

    /// Type and code, HTTP status, tag, wait and summary; never secrets.
    public var description: String {
        var text = "\(Self.self).\(code.rawValue)"
        if let httpStatus { text += " (HTTP \(httpStatus))" }
        if let descriptionTag { text += " [\(descriptionTag)]" }
        if let retryAfter { text += " retry after \(retryAfter)s" }
        if !summary.isEmpty { text += ": \(summary)" }
        return text
    }

    /// `text` with every secret (and its form-encoded spelling) replaced by a marker, then cut to ``summaryLimit``
    /// (redacted before the cut, so a cut cannot leave half a secret behind).
    public static func safe(_ text: String, secrets: [String]) -> String {
        SafeSummary.truncate(SafeSummary.redact(text, secrets: secrets), limit: summaryLimit)
    }
}
