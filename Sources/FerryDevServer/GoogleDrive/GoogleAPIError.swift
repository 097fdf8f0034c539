import FerryCore
import Hummingbird

/// A non-success answer in Google's shape: `{"error": {"code", "message", "errors": [{"domain", "reason",
/// "message"}], "status"}}` for the Drive routes, `{"error", "error_description"}` for the token endpoint.
struct GoogleAPIError: Error {
    var status: HTTPResponse.Status
    var body: JSONValue
    var headers: HTTPFields = [:]

    /// A Drive error with Google's `reason`.
    static func drive(_ status: HTTPResponse.Status, reason: String, _ message: String, domain: String = "global") -> GoogleAPIError {
        let statusName: String = switch status.code {
        case 400: "INVALID_ARGUMENT"
        case 401: "UNAUTHENTICATED"
        case 403: "PERMISSION_DENIED"
        case 404: "NOT_FOUND"
        case 429: "RESOURCE_EXHAUSTED"
        case 500...599: "UNAVAILABLE"
        default: "FAILED_PRECONDITION"
        }
        return GoogleAPIError(status: status, body: .object(["error": .object([
            "code": .int(Int64(status.code)), "message": .string(message), "status": .string(statusName),
            "errors": .array([.object(["domain": .string(domain), "reason": .string(reason), "message": .string(message)])]),
        ])]))
    }

    static func notFound(_ id: String) -> GoogleAPIError {
        drive(.notFound, reason: "notFound", "File not found: \(id.prefix(200)).")
    }

    static func badRequest(_ message: String, reason: String = "badRequest") -> GoogleAPIError {
        drive(.badRequest, reason: reason, message)
    }

    /// 401 `authError`, as Google answers a missing, expired or unknown token.
    static var unauthorized: GoogleAPIError {
        var error = drive(.unauthorized, reason: "authError", "Request had invalid authentication credentials. Expected OAuth 2 access token.")
        error.headers[.wwwAuthenticate] = "Bearer realm=\"https://accounts.google.com/\""
        return error
    }

    /// A rate limit: 403 `userRateLimitExceeded` / `rateLimitExceeded` (no `Retry-After`, as Google sends them), or
    /// 429 with `Retry-After`.
    static func rateLimited(status: HTTPResponse.Status, reason: String, retryAfter: Int?) -> GoogleAPIError {
        var error = drive(status, reason: reason, "Rate Limit Exceeded", domain: "usageLimits")
        if let retryAfter { error.headers[.retryAfter] = String(retryAfter) }
        return error
    }

    /// The token endpoint's error (`invalid_grant`, `invalid_client`…).
    static func oauth(_ status: HTTPResponse.Status, _ error: String, _ description: String) -> GoogleAPIError {
        GoogleAPIError(status: status, body: .object(["error": .string(error), "error_description": .string(description)]))
    }

    var response: Response {
        var response = Response.json(body, status: status)
        response.headers.append(contentsOf: headers)
        return response
    }
}
