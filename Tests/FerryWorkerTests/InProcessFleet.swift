import AsyncHTTPClient
import FerryClient
import FerryCore
import FerryDevServer
import FerryHTTP
import FerryProviders
import FerryStore
import FerryTestSupport
import FerryTesting
import Foundation
import Logging
import Synchronization
import Testing

@testable import FerryWorker

/// A provider test's whole fleet in the test's process: the dev server (`InProcessDevServer`), accounts added as
/// `ferry account add` adds them (the provider's own `prepare`, sealed with the test key), jobs enqueued through
/// FerryClient (the producer path `ferry enqueue` takes), and workers built as `ferry worker` builds them
/// (`JobHandlers.fleet`, the scheduler beside them on request). For provider behaviour whose proof is in the jobs,
/// the events, the views, the server's counts or the files; what only a process shows stays with `TestWorker`.
final class InProcessFleet: @unchecked Sendable {
    let db: TestDatabase
    let server: InProcessDevServer
    /// The HTTP client `ferry worker` makes: it follows no redirect itself (handlers check each hop).
    let http: HTTPClient
    /// Accounts and reads, as `ferry account` and `ferry status` use the store.
    let store: FerryStore
    let client: FerryClient
    let box: SecretBox
    private let workers = Mutex<[PostgresWorker]>([])

    private init(db: TestDatabase, server: InProcessDevServer) throws {
        self.db = db
        self.server = server
        http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: HTTPTransferTimeouts.configuration())
        store = db.store(poolSize: 2)
        client = FerryClient(databaseURL: db.url, providers: .standard, logger: Self.quiet)
        box = SecretBox(key: try SecretKey(text: DropboxAccounts.secretKey))
    }

    static let quiet = Logger(label: "ferry.test.fleet", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Runs `body` with a fleet on a fresh database named after `label`; stops every worker it started, the server
    /// and the connections afterwards, whether `body` threw or not.
    static func run(
        _ label: String, configure: (inout DevServerConfiguration) -> Void = { _ in }, _ body: (InProcessFleet) async throws -> Void
    ) async throws {
        let db = try await TestDatabase.make(label)
        let server = try await InProcessDevServer(configure: configure)
        let fleet = try InProcessFleet(db: db, server: server)
        do {
            try await body(fleet)
        } catch {
            await fleet.close()
            throw error
        }
        await fleet.close()
    }

    private func close() async {
        for worker in workers.withLock({ $0 }) { try? await worker.stop() }
        client.close()
        store.client.close()
        try? await http.shutdown()
    }
}

extension InProcessFleet {
    /// `ferry account add NAME --provider PROVIDER` with the given flag values (`api-url`) and secret files'
    /// contents (`refresh-token`), checked with the provider as the command checks them.
    func addAccount(
        _ name: String, provider: String, values: [String: String] = [:], secrets: [String: String] = [:], maxConcurrent: Int? = nil,
        verify: Bool = true
    ) async throws {
        let kind = try #require(ProviderRegistry.standard.accountKind(of: provider), "a provider with accounts")
        let inputs = AccountInputs(
            name: name, provider: provider, maxConcurrent: maxConcurrent, values: values, secrets: secrets, verify: verify)
        let (account, _) = try await kind.prepare(inputs, httpClient: http, logger: Self.quiet)
        try await store.accounts.add(account, box: box, by: "test")
    }

    /// `ferry account add NAME --provider dropbox` with a refresh token of the dev server's account `name`, every host
    /// pointed at the server; answers the refresh token.
    @discardableResult
    func addDropbox(_ name: String, maxConcurrent: Int? = nil) async throws -> String {
        let token = try await server.refreshToken(for: name)
        try await addAccount(
            name, provider: "dropbox",
            values: ["app-key": DevServerProcess.appKey, "api-url": server.baseURL, "content-url": server.baseURL, "authorize-url": server.baseURL],
            secrets: ["app-secret": server.appSecret, "refresh-token": token], maxConcurrent: maxConcurrent)
        return token
    }

    /// `ferry worker --name NAME --concurrency N --chunk-size MIB --retry-base 0.2` with the secret key, allowed the temporary
    /// directory (as `TestWorker`'s are); with `scheduleInterval`, its scheduler fires schedules. Its lease is a
    /// minute, kept through a stalled test process. `variables` add to the environment its providers read their knobs
    /// from (`FERRY_DROPBOX_*`); `allowsDeletes: false` is `--no-deletes`; its log, and its handlers', go to `logger` if
    /// given. Stopped with the fleet if not before.
    func worker(
        _ name: String, concurrency: Int = 4, chunkMiB: Int = 8, scheduleInterval: Duration? = nil, variables: [String: String] = [:],
        allowsDeletes: Bool = true, logger: Logger? = nil, configure: (inout WorkerConfiguration) -> Void = { _ in }
    ) throws -> PostgresWorker {
        let roots = try LocalRoots(directories: [FileManager.default.temporaryDirectory.path])
        var configuration = WorkerHarness.configuration(name: name, concurrency: concurrency, rescueAfter: OneMinuteLease.rescueAfter)
        configuration.localRoots = roots
        configuration.retryPolicy = RetryPolicy(baseSeconds: 0.2)
        configure(&configuration)
        let store = db.store()
        let logger = logger ?? Self.quiet
        let handlers = JobHandlers.fleet(
            .standard, store: store, box: box, http: http, workerName: name, chunkBytes: chunkMiB << 20, roots: roots,
            allowsDeletes: allowsDeletes, variables: ProcessInfo.processInfo.environment.merging(variables) { $1 }, logger: logger)
        let worker = PostgresWorker(
            db, handlers: handlers, configuration: configuration, scheduleInterval: scheduleInterval, store: store, logger: logger)
        workers.withLock { $0.append(worker) }
        return worker
    }

    /// `ferry enqueue KIND SOURCE --to TO [--batch B] [--option …]` through FerryClient; answers the job's id as the
    /// command prints it.
    @discardableResult
    func enqueue(
        _ kind: JobKind, _ source: String, to: String, batch: String? = nil, options: [String: OptionValue] = [:],
        maxAttempts: Int64? = nil
    ) async throws -> String {
        let jobs = try await client.enqueue([JobRequest(kind: kind, source: source, to: to, batch: batch, maxAttempts: maxAttempts, options: options)])
        return try #require(jobs.first).id.uuidString.lowercased()
    }

    /// `ferry wait --batch BATCH`: waits until the batch is done (at most 300 s) and expects every job of it succeeded.
    func waitForBatch(_ batch: String) async throws {
        try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "batch \(batch) to finish") { [db] in
            try await WorkerFixtures.batchDone(db, batch)
        }
        let failed = try await db.query(
            "SELECT source, state, last_error FROM ferry.jobs WHERE batch = $1 AND state <> 'succeeded' LIMIT 5", [batch]).rows
            .map { "\((try? $0.decode(String.self, at: 0)) ?? "?") \((try? $0.decode(String.self, at: 1)) ?? "?"): \((try? $0.decode(String?.self, at: 2)) ?? nil ?? "")" }
        #expect(failed.isEmpty, "every job of batch \(batch) succeeded: \(failed)")
    }

    /// Stops `workers` gracefully (as SIGTERM does) and waits for them.
    func stop(_ workers: [PostgresWorker]) async throws {
        for worker in workers { try await worker.stop() }
        self.workers.withLock { list in list.removeAll { running in workers.contains { $0 === running } } }
    }
}
