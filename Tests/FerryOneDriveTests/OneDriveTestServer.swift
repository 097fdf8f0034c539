import AsyncHTTPClient
import FerryDevServer
import FerryOneDrive
import FerryTestSupport
import Foundation
import Logging
import NIOCore

/// A dev server on a free loopback port in a fresh storage directory, plus a ``OneDriveClient`` pointed at it.
final class OneDriveTestServer: Sendable {
    static let clientID = "ferry-onedrive-test-client"
    static let clientSecret = "ferry-onedrive-test-secret"

    let server: DevServer
    let http: HTTPClient
    let client: OneDriveClient
    let baseURL: String

    private init(server: DevServer, http: HTTPClient, client: OneDriveClient, baseURL: String) {
        self.server = server
        self.http = http
        self.client = client
        self.baseURL = baseURL
    }

    static func run(accessTokenLifetime: Double = 14400, faults: FaultConfiguration = .none, _ body: (OneDriveTestServer) async throws -> Void) async throws {
        let storage = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-onedrive-\(UUID().uuidString)").path
        var serverLogger = Logger(label: "ferry.onedrive-test.dev-server")
        serverLogger.logLevel = .critical
        let server = try DevServer(
            configuration: DevServerConfiguration(
                storageDirectory: storage, appKey: clientID, appSecret: clientSecret, accessTokenLifetime: accessTokenLifetime, faults: faults),
            logger: serverLogger)
        let task = Task { try await server.run() }
        let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: .init(redirectConfiguration: .disallow))
        var failure: (any Error)?
        do {
            let port = try await server.waitUntilRunning()
            let baseURL = "http://127.0.0.1:\(port)"
            let client = OneDriveClient(
                httpClient: http, endpoints: .single(baseURL), logger: Logger(label: "ferry.onedrive-test"), requestTimeout: .seconds(180))
            try await body(OneDriveTestServer(server: server, http: http, client: client, baseURL: baseURL))
        } catch {
            failure = error
        }
        try? await http.shutdown()
        task.cancel()
        _ = try? await task.value
        try? FileManager.default.removeItem(atPath: storage)
        if let failure { throw failure }
    }

    /// Links `account` and returns an access token obtained with the client's refresh flow (a public client: no secret).
    func accessToken(account: String = "alice") async throws -> String {
        let refresh = server.issueOneDriveRefreshToken(account: account)
        return try await client.refreshAccessToken(refreshToken: refresh, clientID: Self.clientID, clientSecret: nil).accessToken
    }

    static func collect(_ download: OneDriveDownload) async throws -> [UInt8] {
        var out: [UInt8] = []
        for try await buffer in download.body { out += buffer.readableBytesView }
        return out
    }

    static func bytes(_ count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state >> 24)
        }
    }
}
