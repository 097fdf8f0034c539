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

/// The Google Drive handlers in process: an in-process dev server (its Drive emulation), an account in a test
/// database (tokens are refreshed through the real `AccountTokenProvider`), and jobs run by real `Worker`s over a
/// `MemoryWorkerStore` (``WorkerHarness``), whose local root is a fresh folder.
final class GoogleDriveWorkerFixture: Sendable {
    static let clientID = "ferry-gdrive-worker-test"
    static let clientSecret = "ferry-gdrive-worker-secret"
    /// Ferry's providers, Drive among them (its one registry line).
    static let registry = ProviderRegistry.standard

    let server: DevServer
    let baseURL: String
    let database: TestDatabase
    let store: FerryStore
    let tokens: AccountTokenProvider
    let environment: ProviderEnvironment
    let folder: String
    let refreshToken: String
    let jobs = MemoryWorkerStore()

    private init(
        server: DevServer, baseURL: String, database: TestDatabase, store: FerryStore, tokens: AccountTokenProvider,
        environment: ProviderEnvironment, folder: String, refreshToken: String
    ) {
        self.server = server
        self.baseURL = baseURL
        self.database = database
        self.store = store
        self.tokens = tokens
        self.environment = environment
        self.folder = folder
        self.refreshToken = refreshToken
    }

    static func run(
        _ label: String, chunkSize: Int = 256 * 1024, faults: FaultConfiguration = .none, _ body: (GoogleDriveWorkerFixture) async throws -> Void
    ) async throws {
        let folder = try temporaryFolder("gdrive-\(label)")
        var logger = Logger(label: "ferry.gdrive-worker-test.dev-server")
        logger.logLevel = .critical
        let server = try DevServer(
            configuration: DevServerConfiguration(storageDirectory: folder + "/.server", appKey: clientID, appSecret: clientSecret, faults: faults),
            logger: logger)
        let task = Task { try await server.run() }
        let database = try await TestDatabase.make("gdrive_\(label)")
        let store = database.store()
        var failure: (any Error)?
        do {
            let port = try await server.waitUntilRunning()
            let baseURL = "http://127.0.0.1:\(port)"
            let refresh = server.issueGoogleDriveRefreshToken(account: "drive")
            let box = SecretBox(key: try SecretKey(text: DropboxAccounts.secretKey))
            try await store.accounts.add(
                NewAccount(name: "drive", provider: "gdrive", appKey: clientID, secrets: ["client_secret": clientSecret], refreshToken: refresh, apiURL: baseURL),
                box: box, by: "test")
            let tokens = AccountTokenProvider(
                store: store, box: box, httpClient: .shared, actor: "test", logger: Logger(label: "ferry.gdrive-worker-test"), registry: registry)
            let environment = ProviderEnvironment(httpClient: .shared, tokens: tokens, chunkSize: chunkSize)
            let fixture = GoogleDriveWorkerFixture(
                server: server, baseURL: baseURL, database: database, store: store, tokens: tokens, environment: environment, folder: folder,
                refreshToken: refresh)
            fixture.jobs.setAccount(MemoryAccount(name: "drive", provider: "gdrive", maxConcurrent: 16))
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

    /// The registered handler of `kind` (what a worker process would get), as a fresh worker makes it.
    func handler(_ kind: JobKind) -> any JobHandler {
        (Self.registry.provider(for: "gdrive:drive:/") as? any ProviderHandlers)!.handler(for: kind, environment: environment)!
    }

    /// A worker running `kind` jobs over the fixture's job store, confined to the fixture's folder.
    func worker(_ kind: JobKind, concurrency: Int = 4) throws -> WorkerHarness {
        var configuration = WorkerHarness.configuration(concurrency: concurrency, rescueAfter: OneMinuteLease.rescueAfter)
        configuration.localRoots = try LocalRoots(directories: [folder])
        return WorkerHarness(store: jobs, handler: handler(kind), configuration: configuration)
    }

    /// A job as `ferry enqueue` validates it, with the test's registry.
    func spec(_ kind: JobKind, source: String, to destination: String, options: [String: OptionValue] = [:]) throws -> JobSpec {
        var spec = try JobRequest(kind: kind, source: source, to: destination, options: options).validated(
            jobID: UUIDv7.make(), now: Date(), currentDirectory: folder, inspectFile: LocalFileInspector.examine, providers: Self.registry)
        spec.maxAttempts = 5
        return spec
    }

    /// Enqueues `specs`, runs them on a worker until they settle, and returns them.
    func run(_ specs: [JobSpec], kind: JobKind, concurrency: Int = 4, timeout: Duration = .seconds(300)) async throws -> [MemoryJob] {
        let worker = try worker(kind, concurrency: concurrency)
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

    /// Writes `bytes` to `name` in the fixture's folder, with the modification time `modified` (seconds since 1970).
    @discardableResult
    func file(_ name: String, _ bytes: [UInt8], modified: TimeInterval = 1_700_000_000) throws -> String {
        let path = folder + "/" + name
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: modified)], ofItemAtPath: path)
        return path
    }

    /// The Drive items of the account with their paths.
    func items() -> [(path: String, json: JSONValue)] {
        server.googleDriveItems(account: "drive").map { ($0["path"]?.stringValue ?? "", $0) }
    }

    /// The bytes stored for the item at `path` (the first of that path).
    func stored(_ path: String) throws -> [UInt8] {
        guard let id = items().first(where: { $0.path == path })?.json["id"]?.stringValue,
            let disk = server.googleDriveFilePath(account: "drive", id: id)
        else { throw TestSupportError("nothing stored at \(path)") }
        return Array(try Data(contentsOf: URL(fileURLWithPath: disk)))
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
