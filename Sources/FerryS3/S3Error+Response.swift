import FerryCore
import FerryHTTP
import NIOHTTP1

/// Mapping S3's error answers (`<Error><Code>…<Message>…<RequestId>…`) onto ``S3Error``.
extension S3Error {
    /// Longest message kept.
    static let messageLimit = 300

    /// Builds the error for a non-2xx answer (or a 200 whose body is an `<Error>` document).
    /// `body` is empty for HEAD; `notFound` is the code a bodiless 404 gets. Only `Code`, `Message`
    /// and `RequestId` are read: S3 also echoes the string to sign and the canonical request for
    /// signature errors, which must not travel further.
    static func fromResponse(
        operation: String, status: Int, headers: HTTPHeaders, body: [UInt8], notFound: Code, secrets: [String]
    ) -> S3Error {
        let document = body.isEmpty ? nil : try? S3XMLElement.parse(body)
        let errorElement = document?.name == "Error" ? document : nil
        let s3Code = errorElement?.text(of: "Code").flatMap { $0.isEmpty ? nil : $0 }
        let requestID = errorElement?.text(of: "RequestId") ?? headers.first(name: "x-amz-request-id")
        let retryAfter = HTTPRetryAfter.seconds(headers.first(name: "Retry-After"))

        var code: Code
        if status == 429 {
            code = .slowDown
        } else if let s3Code {
            code = Self.code(for: s3Code)
            if case .other = code, status >= 500 { code = .serverError }
        } else {
            code = Self.code(forStatus: status, notFound: notFound)
        }

        var message = errorElement?.text(of: "Message") ?? ""
        if message.isEmpty && errorElement == nil && !body.isEmpty && document == nil {
            // Not XML (a proxy's HTML page, say): keep a short excerpt.
            message = String(decoding: body.prefix(messageLimit * 2), as: UTF8.self)
        }
        return S3Error(
            code: code, operation: operation, httpStatus: status, s3Code: s3Code,
            message: safe(message, secrets: secrets), requestID: requestID.map { truncate($0) }, retryAfter: retryAfter)
    }

    /// The code for an S3 error code string.
    static func code(for s3Code: String) -> Code {
        switch s3Code {
        case "AccessDenied", "AllAccessDisabled", "AccountProblem": .accessDenied
        case "NoSuchBucket": .noSuchBucket
        case "NoSuchKey": .noSuchKey
        case "NoSuchUpload": .noSuchUpload
        case "InvalidPart": .invalidPart
        case "InvalidPartOrder": .invalidPartOrder
        case "EntityTooSmall": .entityTooSmall
        case "PreconditionFailed": .preconditionFailed
        case "InvalidRange": .invalidRange
        case "SlowDown", "Throttling", "ThrottlingException", "TooManyRequests", "RequestLimitExceeded": .slowDown
        case "InternalError", "ServiceUnavailable": .serverError
        case "BadDigest", "XAmzContentSHA256Mismatch": .badDigest
        case "SignatureDoesNotMatch": .signatureDoesNotMatch
        case "InvalidAccessKeyId": .invalidAccessKeyId
        case "ExpiredToken", "TokenRefreshRequired": .expiredToken
        default: .other(s3Code)
        }
    }

    /// The code for an answer without an error document (HEAD, or a body that is not S3's).
    static func code(forStatus status: Int, notFound: Code) -> Code {
        switch status {
        case 403: .accessDenied
        case 404: notFound
        case 412: .preconditionFailed
        case 416: .invalidRange
        case 429, 503: .slowDown
        case 500...599: .serverError
        case 301, 307: .other("PermanentRedirect")
        case 400: .other("BadRequest")
        case 409: .other("Conflict")
        default: .invalidResponse
        }
    }

    /// Scrubbed of secrets, then truncated (in that order, so a cut cannot leave half a secret).
    static func safe(_ text: String, secrets: [String]) -> String {
        truncate(redact(text, secrets: secrets))
    }

    static func truncate(_ text: String) -> String {
        SafeSummary.truncate(text, limit: messageLimit)
    }

    /// Replaces every secret (and its percent-encoded spelling) with a marker.
    static func redact(_ text: String, secrets: [String]) -> String {
        SafeSummary.redact(text, secrets: secrets) { S3URIEncoding.encode($0, keepSlash: false) }
    }
}
