import FerryDevServer
import FerryTestSupport
import Foundation
import Logging

/// A `DevServer` in the test's process on a free loopback port: the same responder and `/__dev/` control routes
/// as `ferry dev-server`, reached over real HTTP, with no child process. Tests written against `DevServerControl`
/// take it where they took a `DevServerProcess`.
final class InProcessDevServer: DevServerControl, @unchecked Sendable {
    let server: DevServer
    let baseURL: String
    let storage: String
    let appSecret: String
    let appSecretFile: String
    private let running: Task<Void, any Error>

    /// Starts the server with `DevServerProcess`'s app key and a random app secret, storing under a fresh folder.
    init(configure: (inout DevServerConfiguration) -> Void = { _ in }) async throws {
        storage = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-devserver-\(UUID().uuidString)").path
        appSecret = "dev-secret-" + UUID().uuidString
        appSecretFile = storage + ".app-secret"
        guard FileManager.default.createFile(atPath: appSecretFile, contents: Data(appSecret.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw TestSupportError("cannot write \(appSecretFile)")
        }
        var configuration = DevServerConfiguration(storageDirectory: storage, appKey: DevServerProcess.appKey, appSecret: appSecret)
        configure(&configuration)
        var logger = Logger(label: "ferry.test.dev-server")
        logger.logLevel = .critical
        let server = try DevServer(configuration: configuration, logger: logger)
        self.server = server
        running = Task { try await server.run() }
        let port = try await server.waitUntilRunning()
        baseURL = "http://127.0.0.1:\(port)"
    }

    deinit {
        running.cancel()
        try? FileManager.default.removeItem(atPath: storage)
        try? FileManager.default.removeItem(atPath: appSecretFile)
    }
}
