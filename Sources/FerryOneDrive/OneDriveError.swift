import FerryCore
import FerryHTTP

/// A failed Microsoft Graph or identity platform call: an HTTP error answer, an unusable response, or a transport
/// problem.
///
/// Match on ``code`` (and ``reason``, Graph's `error.code` or the OAuth `error`), never on summary text.
/// ``description`` is safe to log: it never contains access tokens, refresh tokens, client secrets, authorization
/// codes, PKCE verifiers or upload session URLs (the client scrubs them from anything the server echoed). The fields
/// and behaviour every service's error shares come from ``HTTPServiceFailure``.
public struct OneDriveError: HTTPServiceFailure {
    public var failure: HTTPFailure<Code>

    public init(_ failure: HTTPFailure<Code>) {
        self.failure = failure
    }

    public enum Code: String, Sendable {
        /// 401: the access token is missing, expired or revoked: refresh it and try again.
        case unauthorized
        /// Token endpoint `invalid_grant`: the refresh token (or code) is expired or revoked: log in again.
        case invalidGrant
        /// Token endpoint `invalid_client` / `unauthorized_client`: wrong client id or secret.
        case invalidClient
        /// 429, or 503 with `Retry-After`: throttled; wait, then try again.
        case rateLimited
        /// 404: no such item.
        case notFound
        /// An upload session is gone (404 on its URL): start a new one.
        case sessionExpired
        /// 409 (`nameAlreadyExists` with conflictBehavior `fail`, or a conflicting range).
        case conflict
        /// 416: a range outside the item (or the session's expected ranges).
        case rangeNotSatisfiable
        /// 507 or `quotaLimitReached`: the drive is full.
        case insufficientStorage
        /// 400 or another unexpected 4xx.
        case badRequest
        /// 403.
        case forbidden
        /// 5xx (a 503 without `Retry-After` included).
        case serverError
        /// The connection failed or closed before a response arrived.
        case transport
        /// No response within the request timeout.
        case timeout
        /// The response could not be understood.
        case invalidResponse
    }

    /// Worth retrying later: 5xx, transport failures, timeouts and throttling.
    public static let retryableCodes: Set<Code> = [.serverError, .transport, .timeout, .rateLimited]
}
