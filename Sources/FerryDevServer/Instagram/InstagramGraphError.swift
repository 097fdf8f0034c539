import FerryCore
import Hummingbird

/// A Graph error answer: `{"error": {"message", "type", "code", "error_subcode"?, "fbtrace_id"}}`.
struct InstagramGraphError: Error {
    var status: HTTPResponse.Status
    var code: Int
    var subcode: Int?
    var type = "OAuthException"
    var message: String

    /// Code 190, subcode 463: the token expired (or is unknown).
    static var expiredToken: InstagramGraphError {
        InstagramGraphError(status: .badRequest, code: 190, subcode: 463, message: "Error validating access token: Session has expired.")
    }

    static func notFound(_ id: String) -> InstagramGraphError {
        InstagramGraphError(
            status: .badRequest, code: 100, subcode: 33, type: "GraphMethodException",
            message: "Unsupported get request. Object with ID '\(id.prefix(64))' does not exist.")
    }

    var response: Response {
        var error: [String: JSONValue] = [
            "message": .string(message), "type": .string(type), "code": .int(Int64(code)), "fbtrace_id": .string("AdevFerry"),
        ]
        if let subcode { error["error_subcode"] = .int(Int64(subcode)) }
        return .json(.object(["error": .object(error)]), status: status)
    }
}
