import FerryCore
import Hummingbird

extension Response {
    /// A JSON body with `Content-Type: application/json` (the Python SDK checks it exactly).
    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: value.jsonText)))
    }
}
