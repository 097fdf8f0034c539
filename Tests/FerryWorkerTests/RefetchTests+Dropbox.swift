import AsyncHTTPClient
import FerryCore
import FerryDevServer
import FerryProviders
import FerryStore
import FerryTestSupport
import FerryTesting
import Foundation
import Logging
import NIOCore
import Testing

@testable import FerryWorker

/// The Dropbox side of the in-process re-fetch: an account on the dev server, jobs enqueued as `ferry enqueue` does,
/// and a worker running the registry's handlers with the account's tokens.
extension RefetchTests {
    /// `ferry account add box --provider dropbox` against `server`: the account in the store, sealed with the test
    /// key; answers the token provider a worker makes for it.
    static func addDropbox(_ server: DevServer, store: FerryStore, http: HTTPClient) async throws -> AccountTokenProvider {
        let box = SecretBox(key: try SecretKey(text: DropboxAccounts.secretKey))
        let base = try #require(server.baseURL)
        try await store.accounts.add(
            NewAccount(
                name: "box", provider: "dropbox", appKey: server.configuration.appKey,
                secrets: ["app_secret": server.configuration.appSecret], refreshToken: server.issueRefreshToken(account: "box"),
                apiURL: base, contentURL: base, authorizeURL: base),
            box: box, by: "test")
        return AccountTokenProvider(
            store: store, box: box, httpClient: http, actor: "worker refetch",
            logger: Logger(label: "ferry.refetch-test", factory: { _ in SwiftLogNoOpLogHandler() }), registry: .standard)
    }

    /// `ferry worker --concurrency 4 --retry-base 0.2 --local-root ROOT` with the secret key, its lease kept through a
    /// stalled test process.
    static func worker(_ db: TestDatabase, root: String, tokens: AccountTokenProvider, http: HTTPClient) throws -> PostgresWorker {
        let localRoots = try LocalRoots(directories: [root])
        var configuration = WorkerHarness.configuration(name: "refetch-1", concurrency: 4, rescueAfter: OneMinuteLease.rescueAfter)
        configuration.localRoots = localRoots
        configuration.retryPolicy = RetryPolicy(baseSeconds: 0.2)
        let environment = ProviderEnvironment(httpClient: http, tokens: tokens, chunkSize: 1 << 20, localRoots: localRoots)
        return PostgresWorker(db, handlers: JobHandlers(registry: .standard, environment: environment), configuration: configuration)
    }

    /// `ferry enqueue fetch SOURCE --to PATH --batch BATCH`, through the store; answers the job's id.
    static func enqueueFetch(_ db: TestDatabase, _ source: String, to path: String, batch: String) async throws -> UUID {
        let spec = try JobRequest(kind: .fetch, source: source, to: path, batch: batch).validated(
            jobID: UUIDv7.make(), now: Date(), currentDirectory: "/", inspectFile: LocalFileInspector.examine,
            providers: ProviderRegistry.standard)
        let store = db.store(poolSize: 1)
        defer { store.client.close() }
        _ = try await store.enqueue([spec])
        return spec.jobID
    }

    /// `ferry wait --batch BATCH`: every job of the batch finished, and all of them succeeded.
    static func waitForBatch(_ db: TestDatabase, _ batch: String) async throws {
        try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "batch \(batch) to finish") {
            try await WorkerFixtures.batchDone(db, batch)
        }
        let unsuccessful = try await count(db, "SELECT count(*) FROM ferry.jobs WHERE batch = $1 AND state <> 'succeeded'", [batch])
        #expect(unsuccessful == 0, "every job of batch \(batch) succeeded")
    }

    /// Uploads `data` to `path` through the Dropbox API, as another app would.
    static func upload(_ server: DevServer, http: HTTPClient, path: String, data: Data) async throws {
        let base = try #require(server.baseURL)
        var request = HTTPClientRequest(url: base + "/2/files/upload")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer " + server.issueAccessToken(account: "box"))
        request.headers.add(name: "Dropbox-API-Arg", value: JSONValue.object(["path": .string(path), "mode": .string("overwrite")]).jsonText)
        request.headers.add(name: "Content-Type", value: "application/octet-stream")
        request.body = .bytes(ByteBuffer(bytes: data))
        let response = try await http.execute(request, timeout: .seconds(60))
        try #require(response.status.code == 200, "upload of \(path) answered \(response.status.code)")
    }
}
