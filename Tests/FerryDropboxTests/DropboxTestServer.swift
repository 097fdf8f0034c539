import AsyncHTTPClient
import FerryDevServer
import FerryTestSupport
import Foundation
import Logging
import NIOCore
@testable import FerryDropbox

/// A dev server on a free loopback port in a fresh storage directory, plus a ``DropboxClient``
/// pointed at it; torn down after the test body.
final class DropboxTestServer: Sendable {
    static let appKey = "ferry-dropbox-test-key"

    let server: DevServer
    let http: HTTPClient
    let client: DropboxClient
    let baseURL: String
    /// Everything the client logged.
    let logs: LogRecorder

    private init(server: DevServer, http: HTTPClient, client: DropboxClient, baseURL: String, logs: LogRecorder) {
        self.server = server
        self.http = http
        self.client = client
        self.baseURL = baseURL
        self.logs = logs
    }

    static func run(
        appSecret: String? = nil,
        accessTokenLifetime: Double = 14400,
        requestTimeout: Duration = .seconds(180),  // generous: a debug server in a loaded parallel test run
        _ body: (DropboxTestServer) async throws -> Void
    ) async throws {
        let storage = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-dropbox-\(UUID().uuidString)").path
        var serverLogger = Logger(label: "ferry.dropbox-test.dev-server")
        serverLogger.logLevel = .critical
        let server = try DevServer(
            configuration: DevServerConfiguration(storageDirectory: storage, appKey: appKey, appSecret: appSecret, accessTokenLifetime: accessTokenLifetime),
            logger: serverLogger)
        // Cancelling the task shuts the server down.
        let task = Task { try await server.run() }
        let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: .init(redirectConfiguration: .disallow))
        let logs = LogRecorder()
        var failure: (any Error)?
        do {
            let port = try await server.waitUntilRunning()
            let baseURL = "http://127.0.0.1:\(port)"
            let client = DropboxClient(httpClient: http, endpoints: .single(baseURL), logger: logs.logger(label: "ferry.dropbox-test"), requestTimeout: requestTimeout)
            try await body(DropboxTestServer(server: server, http: http, client: client, baseURL: baseURL, logs: logs))
        } catch {
            failure = error
        }
        try? await http.shutdown()
        task.cancel()
        _ = try? await task.value
        try? FileManager.default.removeItem(atPath: storage)
        if let failure { throw failure }
    }

    /// Links `account` and returns an access token obtained with the client's refresh flow (a confidential
    /// app: with the server's app secret).
    func accessToken(account: String = "alice") async throws -> String {
        let refresh = server.issueRefreshToken(account: account)
        return try await client.refreshAccessToken(refreshToken: refresh, appKey: Self.appKey, appSecret: server.configuration.appSecret).accessToken
    }

    /// A plain GET (the authorize page), returning status and body text.
    func get(_ url: String) async throws -> (status: Int, text: String) {
        let response = try await http.execute(HTTPClientRequest(url: url), timeout: .seconds(300))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), String(buffer: body))
    }
}
