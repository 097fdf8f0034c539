import AsyncHTTPClient
import NIOCore

/// Raw requests the client has no call for (the tests set up what a person would make in Drive's web UI).
enum HTTPClientRequestFactory {
    static func json(_ url: String, token: String, _ body: String) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: body))
        return request
    }
}
