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
    /// (`allowsDeletes: false`). Stopped with the fleet if the test does not stop it.
    func transferWorker(_ name: String, concurrency: Int = 4, chunkMiB: Int = 8, allowsDeletes: Bool = true) throws -> PostgresWorker {
        try worker(name, concurrency: concurrency, chunkMiB: chunkMiB, allowsDeletes: allowsDeletes)
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
