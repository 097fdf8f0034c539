import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Waits for an OAuth provider to send the browser back to `http://127.0.0.1:PORT/…` (the installed-app flow's
/// loopback redirect) and answers the browser with a page saying it may close. One request, read off the
/// cooperative pool on a thread of its own; what the browser asked for (`/?code=…&state=…`) is handed back whole
/// for the login flow to check. The request is hostile input: its first line is bounded and nothing of it is printed.
final class LoopbackRedirect: @unchecked Sendable {
    let port: Int
    private let socket: Int32

    /// Listens on 127.0.0.1:`port`, or on a free port the system picks when that one is taken (another login, or any
    /// process that happened to get it); `nil` when neither works (then the person pastes the code).
    static func listen(preferring port: Int) -> LoopbackRedirect? {
        LoopbackRedirect(port: port) ?? LoopbackRedirect(port: 0)
    }

    /// Listens on 127.0.0.1:`port` (0: a free one); `nil` when the port is taken.
    init?(port: Int) {
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard bound == 0, Glibc.listen(descriptor, 4) == 0, named == 0 else {
            close(descriptor)
            return nil
        }
        self.port = Int(UInt16(bigEndian: address.sin_port))
        socket = descriptor
    }

    deinit { close(socket) }

    /// The address the browser was sent to (`http://127.0.0.1:PORT/?code=…`), from the first request that carries a
    /// query; blocks, so call it from a thread of its own.
    func waitForRedirect() -> String? {
        while true {
            let client = accept(socket, nil, nil)
            guard client >= 0 else { return nil }
            defer { close(client) }
            var timeout = timeval(tv_sec: 10, tv_usec: 0)
            setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var buffer = [UInt8](repeating: 0, count: 8192)
            let count = read(client, &buffer, buffer.count)
            guard count > 0, let text = String(bytes: buffer[..<count], encoding: .utf8),
                let line = text.split(separator: "\r\n", maxSplits: 1).first
            else { continue }
            let parts = line.split(separator: " ")
            guard parts.count == 3, parts[0] == "GET", parts[1].hasPrefix("/"), parts[1].contains("?") else {
                reply(client, status: "404 Not Found", body: "Not the login's return address.")
                continue
            }
            reply(client, status: "200 OK", body: "Ferry has the authorization. You can close this window.")
            return "http://127.0.0.1:\(port)" + parts[1]
        }
    }

    private func reply(_ client: Int32, status: String, body: String) {
        let response = "HTTP/1.1 \(status)\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        _ = response.withCString { write(client, $0, strlen($0)) }
    }
}
