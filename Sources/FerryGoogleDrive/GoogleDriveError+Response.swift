import FerryCore
import FerryHTTP
import NIOHTTP1

/// Mapping Google's HTTP error answers onto ``GoogleDriveError``.
extension GoogleDriveError {
    /// Reasons of a 403 that mean "slow down", not "forbidden".
    static let rateLimitReasons: Set<String> = ["userRateLimitExceeded", "rateLimitExceeded", "sharingRateLimitExceeded"]

    /// Builds the error for a non-2xx answer. `oauth` selects the token endpoint's RFC 6749 shape
    /// (`{"error": "invalid_grant", "error_description": …}`); `session` a resumable session URI's (404 and 410
    /// mean the session is gone); `secrets` are scrubbed from any text taken from the body.
    static func fromResponse(status: Int, headers: HTTPHeaders, body: [UInt8], oauth: Bool, session: Bool, secrets: [String]) -> GoogleDriveError {
        let answer = HTTPErrorAnswer(body: body, retryAfterHeader: headers.first(name: "Retry-After"))
        if oauth, let grantError = answer.oauthError() {
            let code: Code = switch grantError.name {
            case "invalid_grant": .invalidGrant
            case "invalid_client", "unauthorized_client": .invalidClient
            default: status >= 500 ? .serverError : .badRequest
            }
            return GoogleDriveError(
                code: code, httpStatus: status, reason: grantError.name, retryAfter: answer.retryAfter,
                summary: safe(grantError.summary, secrets: secrets))
        }
        // {"error": {"code": 403, "message": "…", "errors": [{"reason": "userRateLimitExceeded", …}], "status": "…"}}
        let error = answer.json?["error"]
        let reason = error?["errors"]?.arrayValue?.first?["reason"]?.stringValue ?? error?["status"]?.stringValue
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
        let message = error?["message"]?.stringValue ?? answer.text
        return GoogleDriveError(
            code: code, httpStatus: status, reason: reason, retryAfter: answer.retryAfter, summary: safe(message, secrets: secrets))
    }
}
