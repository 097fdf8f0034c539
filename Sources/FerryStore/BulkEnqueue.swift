import FerryCore
import Foundation
import Postgres

/// One all-or-nothing enqueue fed in chunks: every chunk goes into the same open transaction, so memory is
/// bounded by a chunk while the result is still whole or nothing. Made by `FerryStore.withBulkEnqueue`.
///
/// Each chunk is checked against what earlier chunks wrote (idempotency keys repeat across chunks as within
/// one), then streamed with `COPY`.
public final class BulkEnqueue: Sendable {
    let transaction: PostgresHeldTransaction

    init(transaction: PostgresHeldTransaction) {
        self.transaction = transaction
    }

    /// Writes one chunk of validated jobs (made off the connection's thread, see `EnqueueChunk`).
    public func add(_ chunk: EnqueueChunk) async throws -> [EnqueueOutcome] {
        guard !chunk.specs.isEmpty else { return [] }
        do {
            return try await transaction.run { connection in
                try FerryStore.enqueue(chunk, on: connection)
            }
        } catch {
            throw FerryStore.translate(error)
        }
    }
}
