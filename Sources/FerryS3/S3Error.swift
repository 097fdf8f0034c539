/// A failed S3 call: an error answer, an unusable response, a transport problem, or a request
/// refused before sending.
///
/// Match on ``code`` (and ``disposition`` for retry decisions), never on message text.
/// ``description`` is safe to log: it names the operation, the code and S3's message, and never
/// contains the secret access key, the session token, the `Authorization` header or signatures.
public struct S3Error: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public enum Code: Sendable, Hashable, CustomStringConvertible {
        /// `AccessDenied` (or a bodiless 403): the credentials may not do this.
        case accessDenied
        /// `NoSuchBucket` (or a 404 from `HeadBucket`).
        case noSuchBucket
        /// `NoSuchKey` (or a 404 from `HeadObject`).
        case noSuchKey
        /// `NoSuchUpload`: the multipart upload was completed, aborted or never existed.
        case noSuchUpload
        /// `InvalidPart`: a listed part was not uploaded or its ETag does not match.
        case invalidPart
        /// `InvalidPartOrder`: the part list of a completion is not in ascending order.
        case invalidPartOrder
        /// `EntityTooSmall`: a part other than the last is below 5 MiB.
        case entityTooSmall
        /// HTTP 412: an `If-Match` condition did not hold (the object changed).
        case preconditionFailed
        /// HTTP 416: the requested range starts at or past the end of the object.
        case invalidRange
        /// `SlowDown` (HTTP 503) or HTTP 429: too many requests.
        case slowDown
        /// HTTP 5xx (`InternalError`, `ServiceUnavailable`, …).
        case serverError
        /// `BadDigest`: the body does not match `Content-MD5` or `x-amz-checksum-sha256`.
        case badDigest
        /// `SignatureDoesNotMatch`: wrong secret access key (or a clock or proxy problem).
        case signatureDoesNotMatch
        /// `InvalidAccessKeyId`: the access key ID is unknown.
        case invalidAccessKeyId
        /// `ExpiredToken`: the session token of temporary credentials has expired.
        case expiredToken
        /// The connection failed or closed before a complete response.
        case transport
        /// No response within the request timeout.
        case timeout
        /// The response could not be understood (bad XML, missing fields, unexpected status).
        case invalidResponse
        /// The client refused the request before sending it (bad endpoint URL, empty key, …).
        case invalidArgument
        /// Any other S3 error code, e.g. `other("InvalidBucketName")`.
        case other(String)

        /// The case name, or the S3 code for `.other`.
        public var description: String {
            switch self {
            case .accessDenied: "accessDenied"
            case .noSuchBucket: "noSuchBucket"
            case .noSuchKey: "noSuchKey"
            case .noSuchUpload: "noSuchUpload"
            case .invalidPart: "invalidPart"
            case .invalidPartOrder: "invalidPartOrder"
            case .entityTooSmall: "entityTooSmall"
            case .preconditionFailed: "preconditionFailed"
            case .invalidRange: "invalidRange"
            case .slowDown: "slowDown"
            case .serverError: "serverError"
            case .badDigest: "badDigest"
            case .signatureDoesNotMatch: "signatureDoesNotMatch"
            case .invalidAccessKeyId: "invalidAccessKeyId"
            case .expiredToken: "expiredToken"
            case .transport: "transport"
            case .timeout: "timeout"
            case .invalidResponse: "invalidResponse"
            case .invalidArgument: "invalidArgument"
            case .other(let code): "other(\(code))"
            }
        }
    }

    public var code: Code
    /// The S3 operation, e.g. `PutObject`, `UploadPart`.
    public var operation: String
    /// HTTP status of the answer, `nil` when there was none.
    public var httpStatus: Int?
    /// The `<Code>` of S3's error document, as sent (`NoSuchKey`); `nil` for bodiless answers.
    public var s3Code: String?
    /// S3's `<Message>` or the client's explanation, truncated and scrubbed of secrets.
    public var message: String
    /// S3's `<RequestId>` (or `x-amz-request-id`), for support cases.
    public var requestID: String?
    /// Seconds to wait before retrying, from a `Retry-After` header.
    public var retryAfter: Double?
    /// Whether the call failed because the surrounding task was cancelled (reported as `.transport`).
    public var isCancellation: Bool

    /// Creates an error; `message` must already be free of secrets.
    public init(
        code: Code, operation: String, httpStatus: Int? = nil, s3Code: String? = nil, message: String = "",
        requestID: String? = nil, retryAfter: Double? = nil, isCancellation: Bool = false
    ) {
        self.code = code
        self.operation = operation
        self.httpStatus = httpStatus
        self.s3Code = s3Code
        self.message = message
        self.requestID = requestID
        self.retryAfter = retryAfter
        self.isCancellation = isCancellation
    }

    /// Operation, code, HTTP status, S3's code and message, request ID; never secrets.
    public var description: String {
        var text = "S3Error.\(code) in \(operation)"
        if let httpStatus { text += " (HTTP \(httpStatus))" }
        if let s3Code { text += " [\(s3Code)]" }
        if let retryAfter { text += " retry after \(retryAfter)s" }
        if !message.isEmpty { text += ": \(message)" }
        if let requestID { text += " (request \(requestID))" }
        return text
    }
}
