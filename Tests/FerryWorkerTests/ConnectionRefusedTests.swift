import AsyncHTTPClient
import FerryHTTP
import FerryTestSupport
import Foundation
import NIOCore
import Testing

@testable import FerryWorker

/// A refused connection is said as a refusal (NIO's text said "connection reset (error set): Connection refused)"),
/// and the shared client configuration gives it up at once instead of retrying until the connect timeout.
@Suite("connection refused: plain words, no retries inside the client", .tags(.fast))
struct ConnectionRefusedTests {
    /// A loopback port nothing listens on: bound, then closed.
    static func closedPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        try #require(bound)
        return Int(UInt16(bigEndian: address.sin_port))
    }

    @Test("a request to a closed port fails as a refusal naming host and port, not as a connect timeout")
    func refusedAtOnce() async throws {
        let port = try Self.closedPort()
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: HTTPTransferTimeouts.configuration())
        var failure: (any Error)?
        do {
            _ = try await http.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/file.jpg"), timeout: .seconds(300))
        } catch {
            failure = error
        }
        try await http.shutdown()
        let error = try #require(failure)
        // Retried inside the client, the request would end as HTTPClientError.connectTimeout after 10 s.
        #expect((error as? HTTPClientError) != .connectTimeout, "\(error)")
        let text = ConnectionFailureText.describe(error, host: "127.0.0.1:\(port)")
        #expect(text == "connection refused by 127.0.0.1:\(port) (nothing listens there, or a firewall rejects it)", "\(error)")
        #expect(text.map { !$0.contains("reset") && !$0.contains("errno") } == true)
    }

    @Test("the failure names host and port only (a URL's path and query may hold secrets); other errors keep their text")
    func hostPortOnly() {
        #expect(HTTPFetchHandler.Attempt.hostPort("https://example.com/a?sig=secret") == "example.com:443")
        #expect(HTTPFetchHandler.Attempt.hostPort("http://10.0.0.1:8080/x") == "10.0.0.1:8080")
        #expect(ConnectionFailureText.describe(CancellationError()) == nil)
        #expect(ConnectionFailureText.describe(IOError(errnoCode: ECONNRESET, reason: "read")) == "connection reset (the peer closed it abruptly)")
    }
}
