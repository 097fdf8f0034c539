import FerryCore
import Foundation
import Postgres

extension FerryStore {
    /// Queue depth for metrics (`ferry.queue_depth`): every queue with queued or running jobs, and each of `queues`
    /// (with zeros when empty). Reads the queue counters and a few index probes per queue, never the jobs
    /// themselves, so it costs the same at a million queued jobs as at ten.
    public func queueDepth(including queues: [String] = []) async throws -> [QueueDepthRow] {
        do {
            return try await client.withConnection { connection in
                try connection.query(
                    "SELECT \(QueueDepthRow.columns) FROM ferry.queue_depth($1::text[])", [PostgresArray(queues)]
                ).rows.map(QueueDepthRow.init(row:))
            }
        } catch {
            throw Self.translate(error)
        }
    }
}
