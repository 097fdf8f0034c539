import FerryCore

/// A failed Google Drive or Google OAuth call: an HTTP error answer, an unusable response, or a transport problem.
///
/// Match on ``code`` (and ``reason``, Google's `errors[0].reason`), never on summary text. ``description`` is safe to
/// log: it never contains access tokens, refresh tokens, client secrets, authorization codes, PKCE verifiers or
/// resumable session URIs (the client scrubs them from anything the server echoed).
public struct GoogleDriveError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public enum Code: String, Sendable {
        /// 403 `userRateLimitExceeded` / `rateLimitExceeded`, or 429: back off, then try again.
        case rateLimited
        /// 404: no such file (or a file the app cannot see).
        case notFound
        /// 401: the access token is missing, expired or revoked: refresh it and try again.
        case unauthorized
        /// Token endpoint `invalid_grant`: the refresh token (or code) is expired or revoked: log in again.
        case invalidGrant
        /// Token endpoint `invalid_client`: wrong client id or secret.
        case invalidClient
        /// A resumable session is gone (404 or 410 on its URI): start a new session.
        case sessionExpired
        /// 403 other than a rate limit (`insufficientFilePermissions`, `storageQuotaExceeded`, `fileNotDownloadable`…).
        case forbidden
        /// 400 or another unexpected 4xx (including 416).
        case badRequest
        /// 5xx.
        case serverError
        /// The connection failed or closed before a response arrived.
        case transport
        /// No response within the request timeout.
        case timeout
        /// The response could not be understood (bad JSON, missing fields, a 308 without a usable `Range`).
        case invalidResponse
    }

    public var code: Code
    /// HTTP status of the answer, `nil` when there was none.
    public var httpStatus: Int?
    /// Google's reason (`userRateLimitExceeded`, `notFound`, `storageQuotaExceeded`…) or the OAuth `error`.
    public var reason: String?
    /// Seconds to wait before retrying, from `Retry-After`.
    public var retryAfter: Double?
    /// A short, safe explanation, already scrubbed of secrets.
    public var summary: String
    /// Whether the call failed because the surrounding task was cancelled (reported as `.transport`).
    public var isCancellation: Bool

    /// Creates an error; `summary` must already be free of secrets.
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

    /// Code, HTTP status, reason and summary; never secrets.
    public var description: String {
        var text = "GoogleDriveError.\(code.rawValue)"
        if let httpStatus { text += " (HTTP \(httpStatus))" }
        if let reason { text += " [\(reason)]" }
        if let retryAfter { text += " retry after \(retryAfter)s" }
        if !summary.isEmpty { text += ": \(summary)" }
        return text
    }

    /// Worth retrying later: 5xx, transport failures, timeouts and rate limits.
    public var isRetryable: Bool {
        switch code {
        case .serverError, .transport, .timeout, .rateLimited: true
        default: false
        }
    }
}
