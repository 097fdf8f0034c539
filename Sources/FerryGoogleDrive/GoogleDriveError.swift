import FerryCore
import FerryHTTP

/// A failed Google Drive or Google OAuth call: an HTTP error answer, an unusable response, or a transport problem.
///
/// Match on ``code`` (and ``reason``, Google's `errors[0].reason`, or the OAuth `error`), never on summary text.
/// ``description`` is safe to log: it never contains access tokens, refresh tokens, client secrets, authorization
/// codes, PKCE verifiers or resumable session URIs (the client scrubs them from anything the server echoed). The
/// fields and behaviour every service's error shares come from ``HTTPServiceFailure``.
public struct GoogleDriveError: HTTPServiceFailure {
    /// What kind of failure this is.
    public var failure: HTTPFailure<Code>

    public init(_ failure: HTTPFailure<Code>) {
        self.failure = failure
    }

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

    /// Worth retrying later: 5xx, transport failures, timeouts and rate limits.
    public static let retryableCodes: Set<Code> = [.serverError, .transport, .timeout, .rateLimited]
}
