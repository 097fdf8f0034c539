import AsyncHTTPClient
import FerryDevServer
import FerryTestSupport
import Foundation
import Logging
import NIOCore
@testable import FerryGoogleDrive

/// A dev server on a free loopback port in a fresh storage directory, plus a ``GoogleDriveClient`` pointed at it;
/// torn down after the test body.
final class GoogleDriveTestServer: Sendable {
    static let clientID = "ferry-gdrive-test-client"
    static let clientSecret = "ferry-gdrive-test-secret"

    let server: DevServer
    let http: HTTPClient
    let client: GoogleDriveClient
    let baseURL: String
    /// Everything the client logged.
    let logs: LogRecorder

    private init(server: DevServer, http: HTTPClient, client: GoogleDriveClient, baseURL: String, logs: LogRecorder) {
        self.server = server
        self.http = http
        self.client = client
        self.baseURL = baseURL
        self.logs = logs
    }

    static func run(
        accessTokenLifetime: Double = 14400, faults: FaultConfiguration = .none, _ body: (GoogleDriveTestServer) async throws -> Void
    ) async throws {
        let storage = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-gdrive-\(UUID().uuidString)").path
        var serverLogger = Logger(label: "ferry.gdrive-test.dev-server")
        serverLogger.logLevel = .critical
        let server = try DevServer(
            configuration: DevServerConfiguration(
                storageDirectory: storage, appKey: clientID, appSecret: clientSecret, accessTokenLifetime: accessTokenLifetime, faults: faults),
            logger: serverLogger)
        // Cancelling the task shuts the server down.
        let task = Task { try await server.run() }
        let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: .init(redirectConfiguration: .disallow))
        let logs = LogRecorder()
        var failure: (any Error)?
        do {
            let port = try await server.waitUntilRunning()
            let baseURL = "http://127.0.0.1:\(port)"
            var logger = logs.logger(label: "ferry.gdrive-test")
            logger.logLevel = .trace
            let client = GoogleDriveClient(httpClient: http, endpoints: .single(baseURL), logger: logger, requestTimeout: .seconds(180))
            try await body(GoogleDriveTestServer(server: server, http: http, client: client, baseURL: baseURL, logs: logs))
        } catch {
            failure = error
        }
        try? await http.shutdown()
        task.cancel()
        _ = try? await task.value
        try? FileManager.default.removeItem(atPath: storage)
        if let failure { throw failure }
    }

    /// Links `account` and returns an access token obtained with the client's refresh flow.
    func accessToken(account: String = "alice") async throws -> String {
        let refresh = server.issueGoogleDriveRefreshToken(account: account)
        return try await client.refreshAccessToken(refreshToken: refresh, clientID: Self.clientID, clientSecret: Self.clientSecret).accessToken
    }

    /// Reads a download body completely.
    static func collect(_ download: GoogleDriveDownload) async throws -> [UInt8] {
        var out: [UInt8] = []
        for try await buffer in download.body { out += buffer.readableBytesView }
        return out
    }

    /// `count` pseudo-random bytes (xorshift), the same for the same seed.
    static func bytes(_ count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> [UInt8] {
        var state = seed
        var out = [UInt8](repeating: 0, count: count)
        for index in 0..<count {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            out[index] = UInt8(truncatingIfNeeded: state >> 24)
        }
        return out
    }
}
