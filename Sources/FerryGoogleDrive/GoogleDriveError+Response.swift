import FerryCore
import FerryHTTP
import NIOHTTP1

/// Mapping Google's HTTP error answers onto ``GoogleDriveError``.
extension GoogleDriveError {
    /// Longest excerpt of a response body kept in a summary.
    static let summaryLimit = 300

    /// Reasons of a 403 that mean "slow down", not "forbidden".
    static let rateLimitReasons: Set<String> = ["userRateLimitExceeded", "rateLimitExceeded", "sharingRateLimitExceeded"]

    /// Builds the error for a non-2xx answer. `oauth` selects the token endpoint's RFC 6749 shape
    /// (`{"error": "invalid_grant", "error_description": …}`); `session` a resumable session URI's (404 and 410
    /// mean the session is gone); `secrets` are scrubbed from any text taken from the body.
    static func fromResponse(status: Int, headers: HTTPHeaders, body: [UInt8], oauth: Bool, session: Bool, secrets: [String]) -> GoogleDriveError {
        let text = String(decoding: body, as: UTF8.self)
        let json = try? JSONValue.parse(text)
        let retryAfter = headers.first(name: "Retry-After").flatMap { HTTPRetryAfter.seconds($0) }
        // Redacted before truncation, so a cut cannot leave half a secret behind.
        func safe(_ summary: String) -> String { Self.safe(summary, secrets: secrets) }

        if oauth, let name = json?["error"]?.stringValue {
            let code: Code = switch name {
            case "invalid_grant": .invalidGrant
            case "invalid_client", "unauthorized_client": .invalidClient
            default: status >= 500 ? .serverError : .badRequest
            }
            var summary = name
            if let detail = json?["error_description"]?.stringValue { summary += ": " + detail }
            return GoogleDriveError(code: code, httpStatus: status, reason: name, retryAfter: retryAfter, summary: safe(summary))
        }
        // {"error": {"code": 403, "message": "…", "errors": [{"reason": "userRateLimitExceeded", …}], "status": "…"}}
        let error = json?["error"]
        let reason = error?["errors"]?.arrayValue?.first?["reason"]?.stringValue ?? error?["status"]?.stringValue
        let message = error?["message"]?.stringValue ?? text
        let code: Code
        switch status {
        case 404 where session, 410 where session: code = .sessionExpired
        case 404: code = .notFound
        case 401: code = .unauthorized
        case 429: code = .rateLimited
        case 403: code = reason.map { rateLimitReasons.contains($0) } == true ? .rateLimited : .forbidden
        case 500...599: code = .serverError
        case 400...499: code = .badRequest
        default: code = .invalidResponse
        }
        return GoogleDriveError(code: code, httpStatus: status, reason: reason, retryAfter: retryAfter, summary: safe(message))
    }

    /// `text` with every secret (and its form-encoded spelling) replaced by a marker, then cut to `summaryLimit`.
    static func safe(_ text: String, secrets: [String]) -> String {
        SafeSummary.truncate(SafeSummary.redact(text, secrets: secrets), limit: summaryLimit)
    }
}
