import FerryCore
import Hummingbird

/// An error answer in Graph's shape (`{"error": {"code", "message"}}`), or the identity platform's
/// (`{"error", "error_description"}`).
struct OneDriveGraphError: Error {
    var status: HTTPResponse.Status
    var code: String
    var message: String
    var oauth = false
    var retryAfter: Int?

    static func notFound(_ what: String) -> OneDriveGraphError {
        OneDriveGraphError(status: .notFound, code: "itemNotFound", message: "The resource could not be found: \(what)")
    }

    static func bad(_ message: String, code: String = "invalidRequest") -> OneDriveGraphError {
        OneDriveGraphError(status: .badRequest, code: code, message: message)
    }

    static let unauthorized = OneDriveGraphError(status: .unauthorized, code: "InvalidAuthenticationToken", message: "Access token is empty or invalid.")

    static func throttled(status: HTTPResponse.Status, retryAfter: Int) -> OneDriveGraphError {
        OneDriveGraphError(
            status: status, code: status == .tooManyRequests ? "activityLimitReached" : "serviceNotAvailable",
            message: "The request has been throttled", retryAfter: retryAfter)
    }

    static func oauth(_ status: HTTPResponse.Status, _ error: String, _ description: String) -> OneDriveGraphError {
        OneDriveGraphError(status: status, code: error, message: description, oauth: true)
    }

    var response: Response {
        let body: JSONValue = oauth
            ? .object(["error": .string(code), "error_description": .string("AADSTS70000: " + message), "error_codes": .array([.int(70000)])])
            : .object(["error": .object(["code": .string(code), "message": .string(message)])])
        var response = Response.json(body, status: status)
        if let retryAfter { response.headers[.retryAfter] = String(retryAfter) }
        return response
    }
}
