import AsyncHTTPClient
import FerryCore
import FerryDevServer
import FerryProviders
import FerryStore
import FerryTestSupport
import FerryTesting
import Foundation
import Logging

@testable import FerryWorker

/// The OneDrive handlers in process: an in-process dev server (its Graph emulation), an account in a test database
/// (tokens are refreshed through the real `AccountTokenProvider`), and jobs run by real `Worker`s with the
/// registry's handlers over a `MemoryWorkerStore` (``WorkerHarness``), whose local root is a fresh folder.
final class OneDriveWorkerFixture: Sendable {
    static let clientID = "ferry-onedrive-worker-test"
    static let clientSecret = "ferry-onedrive-worker-secret"
    static let registry = ProviderRegistry.standard

    let server: DevServer
    let baseURL: String
    let database: TestDatabase
    let store: FerryStore
    let tokens: AccountTokenProvider
    let environment: ProviderEnvironment
    let folder: String
    let refreshToken: String
    let box: SecretBox
    let jobs = MemoryWorkerStore()

    private init(
        server: DevServer, baseURL: String, database: TestDatabase, store: FerryStore, tokens: AccountTokenProvider,
        environment: ProviderEnvironment, folder: String, refreshToken: String, box: SecretBox
    ) {
        self.server = server
        self.baseURL = baseURL
        self.database = database
        self.store = store
        self.tokens = tokens
        self.environment = environment
        self.folder = folder
        self.refreshToken = refreshToken
        self.box = box
    }

    static func run(
        _ label: String, chunkSize: Int = 320 * 1024, faults: FaultConfiguration = .none, _ body: (OneDriveWorkerFixture) async throws -> Void
    ) async throws {
        let folder = try temporaryFolder("onedrive-\(label)")
        var logger = Logger(label: "ferry.onedrive-worker-test.dev-server")
        logger.logLevel = .critical
        let server = try DevServer(
            configuration: DevServerConfiguration(storageDirectory: folder + "/.server", appKey: clientID, appSecret: clientSecret, faults: faults),
            logger: logger)
        let task = Task { try await server.run() }
        let database = try await TestDatabase.make("onedrive_\(label)")
        let store = database.store()
        var failure: (any Error)?
        do {
            let port = try await server.waitUntilRunning()
            let baseURL = "http://127.0.0.1:\(port)"
            let refresh = server.issueOneDriveRefreshToken(account: "od")
            let box = SecretBox(key: try SecretKey(text: DropboxAccounts.secretKey))
            // A public (desktop) client: no client secret stored.
            try await store.accounts.add(
                NewAccount(name: "od", provider: "onedrive", appKey: clientID, refreshToken: refresh, apiURL: baseURL), box: box, by: "test")
            let tokens = AccountTokenProvider(
                store: store, box: box, httpClient: .shared, actor: "test", logger: Logger(label: "ferry.onedrive-worker-test"), registry: registry)
            let environment = ProviderEnvironment(httpClient: .shared, tokens: tokens, chunkSize: chunkSize)
            let fixture = OneDriveWorkerFixture(
                server: server, baseURL: baseURL, database: database, store: store, tokens: tokens, environment: environment, folder: folder,
                refreshToken: refresh, box: box)
            fixture.jobs.setAccount(MemoryAccount(name: "od", provider: "onedrive", maxConcurrent: 16))
            try await body(fixture)
        } catch {
            failure = error
        }
        store.client.close()
        task.cancel()
        _ = try? await task.value
        try? FileManager.default.removeItem(atPath: folder)
        if let failure { throw failure }
    }

    /// A Dropbox account `name` on the same dev server (its Dropbox emulation), for copies between the two.
    func addDropboxAccount(_ name: String) async throws {
        try await store.accounts.add(
            NewAccount(
                name: name, provider: "dropbox", appKey: Self.clientID, secrets: ["app_secret": Self.clientSecret],
                refreshToken: server.issueRefreshToken(account: name), apiURL: baseURL, contentURL: baseURL),
            box: box, by: "test")
        jobs.setAccount(MemoryAccount(name: name, provider: "dropbox", maxConcurrent: 16))
    }

    /// The workers' rescue window: a minute keeps their leases through the multi-second stalls of a test process on a
    /// loaded machine (a lapsed lease fences the upload and a rescue runs it again, which these tests would count).
    static let rescueAfter = Duration.seconds(60)

    /// A worker with every registered provider's handlers (uploads, fetches, copies), confined to the fixture's folder.
    func worker(concurrency: Int = 4) throws -> WorkerHarness {
        var configuration = WorkerHarness.configuration(concurrency: concurrency, rescueAfter: Self.rescueAfter)
        configuration.localRoots = try LocalRoots(directories: [folder])
        return WorkerHarness(store: jobs, handlers: JobHandlers(registry: Self.registry, environment: environment), configuration: configuration)
    }

    /// A job as `ferry enqueue` validates it.
    func spec(_ kind: JobKind, source: String, to destination: String, options: [String: OptionValue] = [:], batch: String? = nil) throws -> JobSpec {
        var spec = try JobRequest(kind: kind, source: source, to: destination, batch: batch, options: options).validated(
            jobID: UUIDv7.make(), now: Date(), currentDirectory: folder, inspectFile: LocalFileInspector.examine, providers: Self.registry)
        spec.maxAttempts = 5
        return spec
    }

    /// Enqueues `specs`, runs them on a worker until they settle, and returns them.
    func run(_ specs: [JobSpec], timeout: Duration = .seconds(300)) async throws -> [MemoryJob] {
        let worker = try worker()
        let ids = jobs.enqueue(specs)
        do {
            let done = try await worker.settle(ids, timeout: timeout)
            try await worker.stop()
            return done
        } catch {
            try? await worker.stop()
            throw error
        }
    }

    @discardableResult
    func file(_ name: String, _ bytes: [UInt8], modified: TimeInterval = 1_700_000_000) throws -> String {
        let path = folder + "/" + name
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: modified)], ofItemAtPath: path)
        return path
    }

    func items() -> [(path: String, json: JSONValue)] {
        server.oneDriveItems(account: "od").map { ($0["path"]?.stringValue ?? "", $0) }
    }

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
