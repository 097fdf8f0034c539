import FerryCore
/// A failed Dropbox call: an HTTP error answer, an unusable response, or a transport problem.
///
/// Match on ``code`` and ``tags`` (the route error's union tags), never on summary text.
/// ``description`` is safe to log: it never contains access tokens, refresh tokens, app secrets,
/// authorization codes or PKCE verifiers (the client scrubs them from anything the server echoed).
public struct DropboxError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public enum Code: String, Sendable {
        /// HTTP 400 (bad arguments, malformed header or token) or another unexpected 4xx.
        case badRequest
        /// HTTP 401 `expired_access_token`: refresh the token and try again.
        case expiredAccessToken
        /// HTTP 401 `invalid_access_token`: revoked or unknown token.
        case invalidAccessToken
        /// OAuth token endpoint `invalid_grant`: the refresh token or code is invalid or revoked.
        case invalidGrant
        /// OAuth token endpoint `invalid_client`: wrong app key or secret.
        case invalidClient
        /// Any other HTTP 401 (`missing_scope`, `user_suspended`, ...).
        case authError
        /// HTTP 403 (`AccessError`).
        case accessError
        /// HTTP 409 route error (`path/not_found`, `lookup_failed/incorrect_offset`, ...).
        case pathError
        /// HTTP 429.
        case rateLimited
        /// A route error with `too_many_write_operations` in its tag path (namespace lock contention).
        case tooManyWriteOperations
        /// HTTP 5xx.
        case serverError
        /// The connection failed or closed before a response arrived.
        case transport
        /// No response head within the request timeout.
        case timeout
        /// The response could not be understood (bad JSON, wrong content type, missing fields).
        case invalidResponse
    }

    public var code: Code
    /// HTTP status of the answer, `nil` when there was none (transport, timeout) or for a
    /// per-entry failure inside a successful batch answer.
    public var httpStatus: Int?
    /// Route error tags from the JSON `error` object, outermost first, e.g.
    /// `["lookup_failed", "incorrect_offset"]` or `["path", "conflict", "file"]`.
    public var tags: [String]
    /// The `error` object of the answer (route details such as `correct_offset`).
    public var error: JSONValue?
    /// Seconds to wait before retrying, from the `Retry-After` header or the body's `retry_after`
    /// (the body wins when both are present).
    public var retryAfter: Double?
    /// A short, safe explanation (Dropbox's `error_summary`, a truncated plain-text body, or the
    /// transport failure), already scrubbed of secrets.
    public var summary: String
    /// Whether the call failed because the surrounding task was cancelled (reported as `.transport`).
    public var isCancellation: Bool

    /// Creates an error; `summary` should already be free of secrets.
    public init(
        code: Code, httpStatus: Int? = nil, tags: [String] = [], error: JSONValue? = nil,
        retryAfter: Double? = nil, summary: String = "", isCancellation: Bool = false
    ) {
        self.code = code
        self.httpStatus = httpStatus
        self.tags = tags
        self.error = error
        self.retryAfter = retryAfter
        self.summary = summary
        self.isCancellation = isCancellation
    }

    /// Code, HTTP status, tag path and summary; never secrets.
    public var description: String {
        var text = "DropboxError.\(code.rawValue)"
        if let httpStatus { text += " (HTTP \(httpStatus))" }
        if !tags.isEmpty { text += " [\(tags.joined(separator: "/"))]" }
        if let retryAfter { text += " retry after \(retryAfter)s" }
        if !summary.isEmpty { text += ": \(summary)" }
        return text
    }

    /// Worth retrying later: 5xx, transport failures, timeouts, 429 and write contention.
    public var isRetryable: Bool {
        switch code {
        case .serverError, .transport, .timeout, .rateLimited, .tooManyWriteOperations: true
        default: false
        }
    }

    /// Whether ``tags`` starts with the given path, e.g. `error.tag("path", "conflict")`.
    public func tag(_ path: String...) -> Bool {
        tags.starts(with: path)
    }

    /// The session's real offset from an `incorrect_offset` error (under `lookup_failed` for
    /// finish, at the top level for append).
    public var correctOffset: Int64? {
        guard let error else { return nil }
        return Self.findCorrectOffset(error, depth: 0)
    }

    private static func findCorrectOffset(_ value: JSONValue, depth: Int) -> Int64? {
        guard depth < 16, case .object(let members) = value else { return nil }
        if members[".tag"]?.stringValue == "incorrect_offset", let offset = members["correct_offset"]?.intValue {
            return offset
        }
        for key in members.keys.sorted() {
            if let found = findCorrectOffset(members[key]!, depth: depth + 1) { return found }
        }
        return nil
    }
}
