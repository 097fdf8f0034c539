import FerryCore
import Hummingbird

/// A non-success answer in Dropbox's exact shape; thrown by handlers and turned into a response
/// by ``DevServerResponder``.
struct DropboxError: Error {
    enum Body: Sendable {
        case json(JSONValue)
        case text(String)
    }

    var status: HTTPResponse.Status
    var body: Body
    var headers: HTTPFields = [:]

    /// 400 with Dropbox's plain-text explanation (bad arguments, bad headers, malformed token).
    static func badRequest(route: String, _ message: String) -> DropboxError {
        DropboxError(status: .badRequest, body: .text("Error in call to API function \"\(route)\": \(message)"))
    }

    /// 409 route error; `summary` is the tag path (e.g. `path/not_found`), Dropbox appends dots
    /// so clients match on a prefix instead of the whole string.
    static func routeError(summary: String, _ error: JSONValue) -> DropboxError {
        DropboxError(status: .conflict, body: .json(.object([
            "error_summary": .string(summary + "/..."),
            "error": error,
        ])))
    }

    /// 401 AuthError (`invalid_access_token`, `expired_access_token`).
    static func auth(_ tag: String) -> DropboxError {
        DropboxError(status: .unauthorized, body: .json(.object([
            "error_summary": .string(tag + "/..."),
            "error": .tag(tag),
        ])))
    }

    /// 429 RateLimitError with both the header and the body field clients read.
    static func rateLimited(retryAfter: Int, reason: String = "too_many_requests") -> DropboxError {
        var headers = HTTPFields()
        headers[.retryAfter] = String(retryAfter)
        return DropboxError(
            status: .tooManyRequests,
            body: .json(.object([
                "error_summary": .string(reason + "/..."),
                "error": .object(["reason": .tag(reason), "retry_after": .int(Int64(retryAfter))]),
            ])),
            headers: headers
        )
    }

    /// OAuth endpoint error (`invalid_grant`, `invalid_client`, ...), always 400 like Dropbox.
    static func oauth(_ error: String, _ description: String) -> DropboxError {
        DropboxError(status: .badRequest, body: .json(.object([
            "error": .string(error),
            "error_description": .string(description),
        ])))
    }

    /// A plain-text response with any status (5xx faults, unknown routes).
    static func text(_ status: HTTPResponse.Status, _ message: String) -> DropboxError {
        DropboxError(status: status, body: .text(message))
    }

    var response: Response {
        switch body {
        case .json(let value):
            var response = Response.json(value, status: status)
            response.headers.append(contentsOf: headers)
            return response
        case .text(let text):
            var fields = headers
            fields[.contentType] = "text/plain; charset=utf-8"
            return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(string: text)))
        }
    }
}
