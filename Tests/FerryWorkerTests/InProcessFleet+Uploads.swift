import FerryCore
import FerryProviders
import FerryStore
import FerryTestSupport
import FerryTesting
import Foundation
import Logging
import Testing

@testable import FerryWorker

/// What the upload suites need beside `InProcessFleet`'s basics: workers with `ferry worker`'s `--chunk-size` and
/// the environment knobs it reads (`FERRY_DROPBOX_*`), their handlers' logs, `ferry account login` and
/// `ferry account update` through the store, and `ferry projection verify`'s checks.
extension InProcessFleet {
    /// `ferry worker --name NAME --concurrency N --chunk-size MIB` run with `variables` added to its environment
    /// (`worker(_:)`); it logs to `log` at info, as the binary's default level does. Run it inside `running(_:_:)`.
    func uploadWorker(
        _ name: String, concurrency: Int = 4, chunkMiB: Int = 8, variables: [String: String] = [:], log: LogRecorder? = nil,
        configure: (inout WorkerConfiguration) -> Void = { _ in }
    ) throws -> PostgresWorker {
        var logger = log?.logger(label: "ferry.test.worker.\(name)")
        logger?.logLevel = .info
        return try worker(name, concurrency: concurrency, chunkMiB: chunkMiB, variables: variables, logger: logger, configure: configure)
    }

    /// Runs `body` while `workers` run, then stops them gracefully (as SIGTERM does), whether `body` threw or not.
    func running(_ workers: [PostgresWorker], _ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch {
            for worker in workers { try? await worker.stop() }
            throw error
        }
        try await stop(workers)
    }

    /// Enqueues `requests` in one transaction, as `ferry enqueue --from FILE` does with their JSON Lines.
    func enqueue(_ requests: [JobRequest]) async throws {
        let jobs = try await client.enqueue(requests)
        #expect(jobs.count == requests.count, "every job enqueued")
    }

    /// `ferry account login NAME` on an existing account: the authorize URL it prints (checked: PKCE, offline
    /// access), the dev server's authorize page "allowed" for the code the person pastes, the code redeemed and the
    /// account linked again (its held jobs released).
    func login(_ name: String) async throws {
        let record = try #require(try await store.accounts.named(name), "account \(name)")
        let flow = try #require(ProviderRegistry.standard.accountKind(of: record.provider)?.login, "a login flow")
        let app = try flow.app(of: try await store.accounts.credentials(for: name, box: box))
        let started = flow.start(app, loopbackPort: nil, httpClient: http, logger: Self.quiet)
        #expect(started.url.contains("code_challenge_method=S256") && started.url.contains("token_access_type=offline"), "\(started.url)")
        let (page, status) = try await server.raw("GET", String(started.url.dropFirst(server.baseURL.count)))
        #expect(status == 200)
        let lines = String(decoding: page, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "\n")
        let code = String(try #require(lines.last)).trimmingCharacters(in: .whitespaces)
        let grant = try await flow.finish(code: code, started: started, app: app, httpClient: http, logger: Self.quiet)
        try await store.accounts.link(
            name, refreshToken: grant.refreshToken, accessToken: grant.accessToken, accessTokenExpiresAt: grant.accessTokenExpiresAt,
            providerAccountID: grant.providerAccountID, box: box, by: "test")
    }

    /// `ferry account update NAME …` with the changes its flags make (`--bwlimit 1M` is 1048576 bytes/s).
    @discardableResult
    func updateAccount(_ name: String, _ changes: AccountChanges) async throws -> AccountRecord {
        try await store.accounts.update(name, changes, by: "test")
    }

    /// Whether `ferry projection verify` would pass (exit 0): the replayed projection, the queue and batch counters
    /// and the search terms all agree with the rows.
    func projectionClean() async throws -> Bool {
        let differences = try await projectionDifferences()
        #expect(differences.isEmpty, "\(differences)")
        return differences.isEmpty
    }
}
