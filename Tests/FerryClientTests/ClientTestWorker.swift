import AsyncHTTPClient
import FerryHTTP
import FerryTestSupport
import FerryTesting
import FerryWorker
import Foundation
import Logging
import ServiceLifecycle

/// The worker an app's jobs meet, in the test's process: a real `Worker` on PostgreSQL with the registry's handlers
/// and `ferry worker`'s HTTP client, allowed to read and write below `root` only (`--local-root`). The app's side
/// of these tests stays FerryClient's public API.
struct ClientTestWorker {
    /// Runs a worker while `body` runs, then shuts it down gracefully (as SIGTERM does) and closes what it opened.
    static func during<T: Sendable>(_ db: TestDatabase, root: String, _ body: () async throws -> T) async throws -> T {
        let roots = try LocalRoots(directories: [root])
        var configuration = WorkerHarness.configuration()
        configuration.localRoots = roots
        // It follows no redirect itself (handlers check each hop).
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: HTTPTransferTimeouts.configuration())
        let store = db.store()
        let quiet = Logger(label: "test.worker", factory: { _ in SwiftLogNoOpLogHandler() })
        let environment = ProviderEnvironment(httpClient: http, tokens: nil, chunkSize: 1 << 20, localRoots: roots)
        let worker = Worker(configuration: configuration, store: store, handlers: JobHandlers(registry: .standard, environment: environment), logger: quiet)
        let group = ServiceGroup(services: [worker], logger: quiet)
        let running = Task { try await group.run() }
        let result: Result<T, any Error>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        await group.triggerGracefulShutdown()
        try? await running.value
        store.client.close()
        try await http.shutdown()
        return try result.get()
    }
}
