import FerryCore
import FerryHTTP
import NIOHTTP1

/// Mapping Microsoft's HTTP error answers onto ``OneDriveError``.
extension OneDriveError {
    /// The error for a non-2xx answer. `oauth` selects the token endpoint's RFC 6749 shape; `session` an upload
    /// session URL's (404 means the session is gone); `secrets` are scrubbed from any text taken from the body.
    static func fromResponse(status: Int, headers: HTTPHeaders, body: [UInt8], oauth: Bool, session: Bool, secrets: [String]) -> OneDriveError {
        let answer = HTTPErrorAnswer(body: body, retryAfterHeader: headers.first(name: "Retry-After"))
        // The identity platform's descriptions run on over lines of trace and correlation ids: the first is enough.
        if oauth, let grantError = answer.oauthError(trimDescription: { $0.split(separator: "\r\n").first.map(String.init) ?? $0 }) {
            let code: Code = switch grantError.name {
            case "invalid_grant", "interaction_required": .invalidGrant
            case "invalid_client", "unauthorized_client": .invalidClient
            default: status >= 500 ? .serverError : .badRequest
            }
            return OneDriveError(
                code: code, httpStatus: status, reason: grantError.name, retryAfter: answer.retryAfter,
                summary: safe(grantError.summary, secrets: secrets))
        }
        // {"error": {"code": "itemNotFound", "message": "…", "innerError": {…}}}
        let error = answer.json?["error"]
        let reason = error?["code"]?.stringValue
        let code = code(status: status, reason: reason, session: session, throttled: answer.retryAfter != nil)
        let message = error?["message"]?.stringValue ?? answer.text
        return OneDriveError(
            code: code, httpStatus: status, reason: reason, retryAfter: answer.retryAfter, summary: safe(message, secrets: secrets))
    }

    /// The code of a Graph answer's `status`; `throttled` when it carried `Retry-After` (a 503 then means "wait").
    private static func code(status: Int, reason: String?, session: Bool, throttled: Bool) -> Code {
        switch status {
        case 404 where session: .sessionExpired
        case 404: .notFound
        case 401: .unauthorized
        case 429: .rateLimited
        case 503 where throttled: .rateLimited
        case 409, 412: .conflict
        case 416: .rangeNotSatisfiable
        case 507: .insufficientStorage
        case 403: reason == "quotaLimitReached" ? .insufficientStorage : .forbidden
        case 500...599: .serverError
        case 400...499: .badRequest
        default: .invalidResponse
        }
    }
}
