import AsyncHTTPClient
import FerryCore
import FerryDevServer
import FerryHTTP
import FerryProviders
import FerryStore
import FerryTestSupport
import FerryTesting
import Foundation
import Logging
import NIOCore
import Testing

@testable import FerryWorker

/// Web fetches in process: an in-process dev server serving `/web` files, and a real `Worker` running the
/// registry's handlers over a `MemoryWorkerStore`, confined to `root`.
final class WebFetchHarness: Sendable {
    let server: DevServer
    let webURL: String
    let root: String
    let harness: WorkerHarness
    var store: MemoryWorkerStore { harness.store }

    private init(server: DevServer, webURL: String, root: String, harness: WorkerHarness) {
        self.server = server
        self.webURL = webURL
        self.root = root
        self.harness = harness
    }

    /// Runs `body` with a dev server storing its files under a fresh folder and a worker writing inside `root`.
    static func run(
        root: String, configure: (inout WorkerConfiguration) -> Void = { _ in },
        workerLogger: Logger = Logger(label: "ferry.test.worker", factory: { _ in SwiftLogNoOpLogHandler() }),
        _ body: (WebFetchHarness) async throws -> Void
    ) async throws {
        let storage = try temporaryFolder("web-fetch-server")
        var logger = Logger(label: "ferry.web-fetch-test.dev-server")
        logger.logLevel = .critical
        let server = try DevServer(configuration: DevServerConfiguration(storageDirectory: storage, appKey: "web-fetch-test"), logger: logger)
        let task = Task { try await server.run() }
        // The client `ferry worker` makes: it follows no redirect itself (the web handler does, checking each hop).
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: HTTPTransferTimeouts.configuration())
        var failure: (any Error)?
        do {
            let port = try await server.waitUntilRunning()
            var configuration = WorkerHarness.configuration(rescueAfter: OneMinuteLease.rescueAfter)
            configuration.localRoots = try LocalRoots(directories: [root])
            configure(&configuration)
            var environment = ProviderEnvironment(httpClient: http, tokens: nil, chunkSize: 1 << 20)
            environment.localRoots = configuration.localRoots
            let harness = WorkerHarness(
                handlers: JobHandlers(registry: .standard, environment: environment), configuration: configuration, logger: workerLogger)
            let fixture = WebFetchHarness(server: server, webURL: "http://127.0.0.1:\(port)/web", root: root, harness: harness)
            do {
                try await body(fixture)
            } catch {
                failure = error
            }
            try? await harness.stop()
        } catch {
            failure = error
        }
        try? await http.shutdown()
        task.cancel()
        _ = try? await task.value
        try? FileManager.default.removeItem(atPath: storage)
        if let failure { throw failure }
    }

    /// Serves `bytes` at `/web/{path}` (unless `nil`: what is served stays) and enqueues a fetch of it to `target`
    /// with `options` (as `--option NAME=VALUE`); returns the job's id.
    func fetch(
        _ path: String, bytes: [UInt8]?, to target: String, options: [String: OptionValue] = [:], maxAttempts: Int64? = nil
    ) throws -> UUID {
        if let bytes { try server.storeWebFile(path: path, contents: bytes) }
        let request = JobRequest(kind: .fetch, source: webURL + "/" + path, to: target, maxAttempts: maxAttempts, options: options)
        let spec = try request.validated(
            jobID: UUIDv7.make(), now: Date(), currentDirectory: root, inspectFile: LocalFileInspector.examine,
            providers: ProviderRegistry.standard)
        return store.enqueue(spec).jobID
    }

    /// Sends a control request to the dev server (`/__dev/web/redirect`, `/__dev/web` with a `modified` time): the
    /// stand-in's controls that have no Swift call.
    func control(_ path: String, _ body: JSONValue) async throws {
        var request = HTTPClientRequest(url: webURL.replacingOccurrences(of: "/web", with: "") + path)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: body.jsonText))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        try #require((200..<300).contains(Int(response.status.code)), "\(path) answered \(response.status.code)")
    }

    /// The worker's metrics as Prometheus text.
    func scrape() -> PrometheusText {
        PrometheusText(String(decoding: harness.worker.metrics.registry.emitToBuffer(), as: UTF8.self))
    }

    /// Files in `folder` whose names end in `.part` (a fetch's temporary files).
    static func partFiles(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".part") }
    }

    /// Pseudo-random bytes fully determined by `seed`.
    static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed | 1
        return (0..<count).map { _ in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state >> 24)
        }
    }
}
