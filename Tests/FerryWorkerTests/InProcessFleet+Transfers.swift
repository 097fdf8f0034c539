import FerryClient
import FerryCore
import FerryProviders
import FerryStore
import FerryTestSupport
import FerryTesting
import Foundation
import Testing

@testable import FerryWorker

extension InProcessFleet {
    /// `ferry worker --name NAME [--no-deletes]` as `worker(_:)` builds it, for a worker that deletes nothing
    /// (`allowsDeletes: false`). It is not among the workers the fleet stops: the test stops it with `stop`.
    func transferWorker(_ name: String, concurrency: Int = 4, chunkMiB: Int = 8, allowsDeletes: Bool = true) throws -> PostgresWorker {
        let roots = try LocalRoots(directories: [FileManager.default.temporaryDirectory.path])
        var configuration = WorkerHarness.configuration(name: name, concurrency: concurrency, rescueAfter: OneMinuteLease.rescueAfter)
        configuration.localRoots = roots
        configuration.retryPolicy = RetryPolicy(baseSeconds: 0.2)
        let store = db.store()
        let handlers = JobHandlers.fleet(
            .standard, store: store, box: box, http: http, workerName: name, chunkBytes: chunkMiB << 20, roots: roots,
            allowsDeletes: allowsDeletes, logger: Self.quiet)
        return PostgresWorker(db, handlers: handlers, configuration: configuration, store: store)
    }

    /// `ferry enqueue upload FILE… --to DEST [--batch B] [options]`: one job per file, as the command builds them.
    @discardableResult
    func upload(
        _ files: [String], to destination: String, batch: String? = nil, options: [String: OptionValue] = [:], maxAttempts: Int64? = nil
    ) async throws -> [String] {
        let requests = files.map {
            JobRequest(kind: .upload, source: $0, to: destination, batch: batch, maxAttempts: maxAttempts, options: options)
        }
        return try await client.enqueue(requests).map { $0.id.uuidString.lowercased() }
    }
}
