import FerryCore
import FerryHTTP
import NIOHTTP1

/// A failed Microsoft Graph or identity platform call: an HTTP error answer, an unusable response, or a transport
/// problem.
///
/// Match on ``code`` (and ``reason``, Graph's `error.code` or the OAuth `error`), never on summary text.
/// ``description`` is safe to log: it never contains access tokens, refresh tokens, client secrets, authorization
/// codes, PKCE verifiers or upload session URLs (the client scrubs them from anything the server echoed).
public struct OneDriveError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// 429, or 503 with `Retry-After`: throttled; wait, then try again.
        case rateLimited
        /// 404: no such item.
        case notFound
        /// 401: the access token is missing, expired or revoked: refresh it and try again.
        case unauthorized
        /// Token endpoint `invalid_grant`: the refresh token (or code) is expired or revoked: log in again.
        case invalidGrant
        /// Token endpoint `invalid_client` / `unauthorized_client`: wrong client id or secret.
        case invalidClient
        /// An upload session is gone (404 on its URL): start a new one.
        case sessionExpired
        /// 409 (`nameAlreadyExists` with conflictBehavior `fail`, or a conflicting range).
        case conflict
        /// 416: a range outside the item (or the session's expected ranges).
        case rangeNotSatisfiable
        /// 507 or `quotaLimitReached`: the drive is full.
        case insufficientStorage
        /// 403.
        case forbidden
        /// 400 or another unexpected 4xx.
        case badRequest
        /// 5xx (a 503 without `Retry-After` included).
        case serverError
        case transport
        case timeout
        /// The response could not be understood.
        case invalidResponse
    }

    public var code: Code
    public var httpStatus: Int?
    /// Graph's `error.code` (`itemNotFound`, `nameAlreadyExists`, `activityLimitReached`…) or the OAuth `error`.
    public var reason: String?
    /// Seconds to wait, from `Retry-After`.
    public var retryAfter: Double?
    /// A short, safe explanation, already scrubbed of secrets.
    public var summary: String
    public var isCancellation: Bool

    public init(
        code: Code, httpStatus: Int? = nil, reason: String? = nil, retryAfter: Double? = nil, summary: String = "", isCancellation: Bool = false
    ) {
        self.code = code
        self.httpStatus = httpStatus
        self.reason = reason
        self.retryAfter = retryAfter
        self.summary = summary
        self.isCancellation = isCancellation
    }

    public var description: String {
        var text = "OneDriveError.\(code.rawValue)"
        if let httpStatus { text += " (HTTP \(httpStatus))" }
        if let reason { text += " [\(reason)]" }
        if let retryAfter { text += " retry after \(retryAfter)s" }
        if !summary.isEmpty { text += ": \(summary)" }
        return text
    }

    /// Worth retrying later: 5xx, transport failures, timeouts and throttling.
    public var isRetryable: Bool {
        switch code {
        case .serverError, .transport, .timeout, .rateLimited: true
        default: false
        }
    }

    static let summaryLimit = 300

    /// The error for a non-2xx answer. `oauth` selects the token endpoint's RFC 6749 shape; `session` an upload
    /// session URL's (404 means the session is gone); `secrets` are scrubbed from any text taken from the body.
    static func fromResponse(status: Int, headers: HTTPHeaders, body: [UInt8], oauth: Bool, session: Bool, secrets: [String]) -> OneDriveError {
        let text = String(decoding: body, as: UTF8.self)
        let json = try? JSONValue.parse(text)
        let retryAfter = headers.first(name: "Retry-After").flatMap { HTTPRetryAfter.seconds($0) }
        func safe(_ summary: String) -> String { Self.safe(summary, secrets: secrets) }
        if oauth, let name = json?["error"]?.stringValue {
            let code: Code = switch name {
            case "invalid_grant", "interaction_required": .invalidGrant
            case "invalid_client", "unauthorized_client": .invalidClient
            default: status >= 500 ? .serverError : .badRequest
            }
            var summary = name
            if let detail = json?["error_description"]?.stringValue { summary += ": " + (detail.split(separator: "\r\n").first.map(String.init) ?? detail) }
            return OneDriveError(code: code, httpStatus: status, reason: name, retryAfter: retryAfter, summary: safe(summary))
        }
        // {"error": {"code": "itemNotFound", "message": "…", "innerError": {…}}}
        let error = json?["error"]
        let reason = error?["code"]?.stringValue
        let message = error?["message"]?.stringValue ?? text
        let code: Code
        switch status {
        case 404 where session: code = .sessionExpired
        case 404: code = .notFound
        case 401: code = .unauthorized
        case 429: code = .rateLimited
        case 503 where retryAfter != nil: code = .rateLimited
        case 409, 412: code = .conflict
        case 416: code = .rangeNotSatisfiable
        case 507: code = .insufficientStorage
        case 403: code = reason == "quotaLimitReached" ? .insufficientStorage : .forbidden
        case 500...599: code = .serverError
        case 400...499: code = .badRequest
        default: code = .invalidResponse
        }
        return OneDriveError(code: code, httpStatus: status, reason: reason, retryAfter: retryAfter, summary: safe(message))
    }

    /// `text` with every secret (and its form-encoded spelling) replaced by a marker, then cut to `summaryLimit`.
    static func safe(_ text: String, secrets: [String]) -> String {
        SafeSummary.truncate(SafeSummary.redact(text, secrets: secrets), limit: summaryLimit)
    }
}
