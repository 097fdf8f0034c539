import FerryCore
import FerryHTTP

/// A failed Dropbox call: an HTTP error answer, an unusable response, or a transport problem.
///
/// Match on ``code`` and ``tags`` (the route error's union tags), never on summary text.
/// ``description`` is safe to log: it never contains access tokens, refresh tokens, app secrets,
/// authorization codes or PKCE verifiers (the client scrubs them from anything the server echoed). The fields and
/// behaviour every service's error shares come from ``HTTPServiceFailure``.
public struct DropboxError: HTTPServiceFailure {
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

    /// Code, HTTP status (`nil` when there was none (transport, timeout) or for a per-entry failure inside a
    /// successful batch answer), wait (from the `Retry-After` header or the body's `retry_after`, the body winning
    /// when both are present) and summary (Dropbox's `error_summary`, a truncated plain-text body, or the transport
    /// failure, already scrubbed of secrets).
    public var failure: HTTPFailure<Code>
    /// Route error tags from the JSON `error` object, outermost first, e.g.
    /// `["lookup_failed", "incorrect_offset"]` or `["path", "conflict", "file"]`.
    public var tags: [String]
    /// The `error` object of the answer (route details such as `correct_offset`).
    public var error: JSONValue?

    /// Creates an error; `summary` should already be free of secrets.
    public init(
        code: Code, httpStatus: Int? = nil, tags: [String] = [], error: JSONValue? = nil,
        retryAfter: Double? = nil, summary: String = "", isCancellation: Bool = false
    ) {
        failure = HTTPFailure(code: code, httpStatus: httpStatus, retryAfter: retryAfter, summary: summary, isCancellation: isCancellation)
        self.tags = tags
        self.error = error
    }

    /// Creates an error without route details.
    public init(_ failure: HTTPFailure<Code>) {
        self.failure = failure
        tags = []
        error = nil
    }

    /// Worth retrying later: 5xx, transport failures, timeouts, 429 and write contention.
    public static let retryableCodes: Set<Code> = [.serverError, .transport, .timeout, .rateLimited, .tooManyWriteOperations]

    /// The tag path, shown in ``description``.
    public var descriptionTag: String? { tags.isEmpty ? nil : tags.joined(separator: "/") }

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
