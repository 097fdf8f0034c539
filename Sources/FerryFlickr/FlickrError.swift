/// A failed Flickr call. `description` is safe to log and store: it never contains the API key or a URL's
/// query string.
public struct FlickrError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// `stat: fail` with code 100: the API key is unknown or malformed.
        case invalidAPIKey = "invalid_api_key"
        /// `stat: fail` with code 1 or 2: no such user.
        case userNotFound = "user_not_found"
        /// `stat: fail` with code 105 (service unavailable) or 106: temporary on Flickr's side.
        case serviceUnavailable = "service_unavailable"
        /// Any other `stat: fail` (see `flickrCode`).
        case apiError = "api_error"
        /// HTTP 429.
        case rateLimited = "rate_limited"
        /// HTTP 5xx.
        case serverError = "server_error"
        /// Another unexpected HTTP status.
        case httpStatus = "http_status"
        /// The connection failed or was dropped.
        case transport
        /// No answer in time.
        case timeout
        /// The answer was not the JSON Flickr documents.
        case invalidResponse = "invalid_response"
    }

    public var code: Code
    /// Flickr's own error code from a `stat: fail` answer.
    public var flickrCode: Int?
    /// Flickr's message, or what went wrong (never a secret).
    public var message: String
    public var httpStatus: Int?
    /// Seconds to wait, from `Retry-After` on a 429.
    public var retryAfter: Double?

    public init(code: Code, flickrCode: Int? = nil, message: String, httpStatus: Int? = nil, retryAfter: Double? = nil) {
        self.code = code
        self.flickrCode = flickrCode
        self.message = message
        self.httpStatus = httpStatus
        self.retryAfter = retryAfter
    }

    /// True when trying again later may succeed.
    public var isRetryable: Bool {
        switch code {
        case .serviceUnavailable, .rateLimited, .serverError, .transport, .timeout, .invalidResponse: true
        case .invalidAPIKey, .userNotFound, .apiError, .httpStatus: false
        }
    }

    public var description: String {
        var text = "Flickr \(code.rawValue)"
        if let flickrCode { text += " (code \(flickrCode))" }
        if let httpStatus { text += " HTTP \(httpStatus)" }
        return text + ": " + message
    }
}
