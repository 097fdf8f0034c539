import Foundation

/// A failed Instagram call, classified by code (never by message). Messages never carry a token or a signed URL.
public struct InstagramError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as a job needs to know it.
    public enum Code: String, Sendable {
        /// `OAuthException` code 190: the token expired, was revoked or is unknown.
        case invalidToken = "invalid_token"
        /// Graph codes 4, 17, 32 and 613 (or HTTP 429): the app, user or page is over its request budget.
        case rateLimited = "rate_limited"
        /// Graph code 100 with an unknown object, or HTTP 404.
        case notFound = "not_found"
        /// Another Graph error.
        case apiError = "api_error"
        case httpStatus = "http_status"
        case serverError = "server_error"
        case transport
        case timeout
        case invalidResponse = "invalid_response"
    }

    public var code: Code
    /// Meta's numeric error code, when the answer carried one.
    public var graphCode: Int?
    public var message: String
    public var httpStatus: Int?
    /// How long the service asked to wait (from the usage headers' `estimated_time_to_regain_access`), if it said.
    public var retryAfter: TimeInterval?

    public init(code: Code, graphCode: Int? = nil, message: String, httpStatus: Int? = nil, retryAfter: TimeInterval? = nil) {
        self.code = code
        self.graphCode = graphCode
        self.message = message
        self.httpStatus = httpStatus
        self.retryAfter = retryAfter
    }

    /// Whether another try soon may succeed (server trouble, dropped connections).
    public var isRetryable: Bool {
        [.serverError, .transport, .timeout].contains(code)
    }

    /// Graph's rate-limit codes: application (4), user (17), page (32), and a custom policy (613).
    public static let rateLimitCodes: Set<Int> = [4, 17, 32, 613]

    public var description: String {
        var text = "instagram \(code.rawValue)"
        if let graphCode { text += " (code \(graphCode))" }
        if let httpStatus { text += " HTTP \(httpStatus)" }
        return text + ": " + message
    }
}
