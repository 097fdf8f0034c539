import FerryCore
import FerryTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The command-line side of Dropbox fetches, for the suites that still run `ferry` processes
/// (`DropboxFetchProcessTests`, tracing): `ferry enqueue fetch`, `ferry wait`, and SIGTERM to workers.
extension DropboxFetchTests {
    /// `ferry enqueue fetch …`; returns the job id.
    static func enqueueFetch(_ db: TestDatabase, _ source: String, to: String, _ options: [String]) async throws -> String {
        let result = try await FerryProcess.run(["enqueue", "fetch", source, "--to", to] + options, databaseURL: db.url)
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(result.lines.first?.trimmingCharacters(in: .whitespaces))
    }

    static func waitForBatch(_ db: TestDatabase, _ batch: String) async throws {
        let result = try await FerryProcess.run(["wait", "--batch", batch, "--timeout", "1200"], databaseURL: db.url)
        #expect(result.status == 0, "ferry wait: \(result.stdout)\(result.stderr)")
    }

    static func stop(_ workers: [BackgroundProcess]) async throws {
        for worker in workers { worker.signal(SIGTERM) }
        for worker in workers { _ = try await worker.waitForExit() }
    }
}
