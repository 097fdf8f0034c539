import AsyncHTTPClient
import FerryCore
import FerryStore
import FerryTestSupport
import FerryTesting
import Foundation
import Logging
import NIOCore
import Testing

@testable import FerryWorker

/// Issue 36: a provider connection that goes silent mid-body, through a ``FaultProxy`` in front of the in-process
/// dev server's content host (uploads and downloads; the API host stays direct). The stalled connection stays
/// open and acknowledged by the proxy's kernel, so only the transfer's idle bound (`--read-idle-timeout`, here
/// 2 s) can end it; the piece is retried on a new connection and the job succeeds once, one file at the
/// destination. Without the bound the stalled piece would hang until the kernel gave up, about 15 minutes.
@Suite("a provider connection that goes silent mid-body (fault proxy)", .tags(.postgres), .serialized)
struct SilentProviderTests {
    /// The idle bound under test, and how soon after the stall the retry must have connected: far below the
    /// worker's default bound (60 s) and the kernel's 15 minutes, generous for a loaded machine.
    static let idle: Duration = .seconds(2)
    static let retryBound: Duration = .seconds(30)

    @Test("a Dropbox upload whose body stalls mid-chunk is retried after the idle bound and commits once, no renamed copy")
    func stalledUpload() async throws {
        try await Self.run("silent_up") { f, proxy, handler in
            let bytes = GoogleDriveWorkerFixture.bytes(3 << 20, seed: 361)
            let path = try f.file("src/photo.jpg", bytes)
            // autorename: a second commit of the same name would be kept beside the first as `photo (1).jpg`.
            let spec = try f.spec(.upload, source: path, to: "dropbox:photos:/Camera/", options: ["autorename": .commandLine("true")])
            proxy.stall(after: 1 << 20, .upstream)
            let job = try await Self.settle(f, spec, handler(.upload))
            #expect(job.state == .succeeded, "\(job.lastError ?? "")")
            try Self.expectRetriedInTime(proxy, job)
            let stats = f.server.stats()
            #expect(stats.filesCommitted == 1 && stats.commitsPerPath == ["/camera/photo.jpg": 1], "\(stats.commitsPerPath)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: f.folder + "/.server/photos/Camera/photo.jpg")) == Data(bytes))
        }
    }

    @Test("a Dropbox download whose body stalls mid-file is retried after the idle bound and lands once, intact")
    func stalledDownload() async throws {
        try await Self.run("silent_down") { f, proxy, handler in
            let bytes = GoogleDriveWorkerFixture.bytes(3 << 20, seed: 362)
            let path = try f.file("src/photo.jpg", bytes)
            let upload = try await Self.settle(f, try f.spec(.upload, source: path, to: "dropbox:photos:/Camera/"), handler(.upload))
            try #require(upload.state == .succeeded, "\(upload.lastError ?? "")")

            proxy.stall(after: 1 << 20, .downstream)
            let job = try await Self.settle(f, try f.spec(.fetch, source: "dropbox:photos:/Camera/photo.jpg", to: f.folder + "/back/"), handler(.fetch))
            #expect(job.state == .succeeded, "\(job.lastError ?? "")")
            try Self.expectRetriedInTime(proxy, job)
            #expect(try FileManager.default.contentsOfDirectory(atPath: f.folder + "/back") == ["photo.jpg"], "no partial or renamed file left")
            #expect(try Data(contentsOf: URL(fileURLWithPath: f.folder + "/back/photo.jpg")) == Data(bytes))
        }
    }

    // MARK: Helpers

    /// The stall fired, and a new connection (the retry) came within ``retryBound`` of it.
    static func expectRetriedInTime(_ proxy: FaultProxy, _ job: MemoryJob) throws {
        let stalled = try #require(proxy.stalledAt, "the proxy never stalled a connection: the transfer was smaller than the threshold")
        let retry = try #require(proxy.acceptedAt.first { $0 > stalled }, "no new connection after the stall")
        #expect(retry - stalled < retryBound, "the stalled piece was retried \(retry - stalled) after the stall (idle bound \(idle)); clients closed after \(proxy.clientsClosedAt.map { $0 - stalled }), accepted after \(proxy.acceptedAt.map { $0 - stalled }); events \(job.events), last error \(job.lastError ?? "none")")
        #expect(retry - stalled >= idle / 2, "a retry before the idle bound: the stall was not what ended the piece")
    }

    /// Runs one job on a worker confined to the fixture's folder until it settles.
    static func settle(_ f: GoogleDriveWorkerFixture, _ spec: JobSpec, _ handler: any JobHandler) async throws -> MemoryJob {
        var configuration = WorkerHarness.configuration(name: "silent", concurrency: 1, retryBaseSeconds: 0.2)
        configuration.localRoots = try LocalRoots(directories: [f.folder])
        let worker = WorkerHarness(store: f.jobs, handler: handler, configuration: configuration)
        let id = f.jobs.enqueue(spec).jobID
        do {
            let job = try await worker.settle([id], timeout: .seconds(300))[0]
            try await worker.stop()
            return job
        } catch {
            try? await worker.stop()
            throw error
        }
    }

    /// The fixture with a Dropbox account `photos` whose content host is a ``FaultProxy`` in front of the dev
    /// server, and the registry's Dropbox handlers over an HTTP client with the worker's timeouts at a 2 s idle bound.
    static func run(
        _ label: String, _ body: (GoogleDriveWorkerFixture, FaultProxy, (JobKind) -> any JobHandler) async throws -> Void
    ) async throws {
        try await GoogleDriveWorkerFixture.run(label) { f in
            let port = try #require(Int(f.baseURL.split(separator: ":").last ?? ""))
            let proxy = try FaultProxy(targetPort: port)
            defer { proxy.close() }
            let box = SecretBox(key: try SecretKey(text: DropboxAccounts.secretKey))
            try await f.store.accounts.add(
                NewAccount(
                    name: "photos", provider: "dropbox", appKey: GoogleDriveWorkerFixture.clientID,
                    secrets: ["app_secret": GoogleDriveWorkerFixture.clientSecret], refreshToken: f.server.issueRefreshToken(account: "photos"),
                    apiURL: f.baseURL, contentURL: proxy.url, authorizeURL: f.baseURL),
                box: box, by: "test")
            f.jobs.setAccount(MemoryAccount(name: "photos", provider: "dropbox", maxConcurrent: 16))
            // What `ferry worker --read-idle-timeout 2` configures (HTTPTransferTimeouts).
            let timeout = TimeAmount.seconds(Int64(idle.components.seconds))
            let http = HTTPClient(
                eventLoopGroupProvider: .singleton,
                configuration: HTTPClient.Configuration(
                    redirectConfiguration: .disallow, timeout: .init(connect: .seconds(10), read: timeout, write: timeout)))
            // One client for the handlers and the tokens' provider clients, as a worker process has.
            let tokens = AccountTokenProvider(
                store: f.store, box: box, httpClient: http, actor: "test", logger: Logger(label: "ferry.silent-provider-test"),
                registry: GoogleDriveWorkerFixture.registry)
            let environment = ProviderEnvironment(httpClient: http, tokens: tokens, chunkSize: 256 * 1024)
            let provider = try #require(GoogleDriveWorkerFixture.registry.provider(for: "dropbox:photos:/") as? any ProviderHandlers)
            do {
                try await body(f, proxy) { provider.handler(for: $0, environment: environment)! }
            } catch {
                try? await http.shutdown()
                throw error
            }
            try await http.shutdown()
        }
    }
}
