import FerryCore
import Foundation
import Postgres
import Synchronization

/// One all-or-nothing enqueue fed in chunks: every chunk goes into the same open transaction, so memory is
/// bounded by a chunk while the result is still whole or nothing. Made by `FerryStore.withBulkEnqueue`.
///
/// Each chunk is checked against what earlier chunks wrote (idempotency keys repeat across chunks as within
/// one), then streamed with `COPY`.
public final class BulkEnqueue: Sendable {
    let transaction: PostgresHeldTransaction
    /// The first and last job id handed to `add`: ids are made in input order (UUIDv7), so every job this enqueue
    /// wrote lies between them, and the collision check reads that range of the primary key only.
    private let idRange = Mutex<(first: UUID, last: UUID)?>(nil)

    init(transaction: PostgresHeldTransaction) {
        self.transaction = transaction
    }

    /// Writes one chunk of validated jobs (made off the connection's thread, see `EnqueueChunk`).
    public func add(_ chunk: EnqueueChunk) async throws -> [EnqueueOutcome] {
        guard let first = chunk.specs.first?.jobID, let last = chunk.specs.last?.jobID else { return [] }
        idRange.withLock { range in range = (range?.first ?? first, last) }
        do {
            return try await transaction.run { connection in
                try FerryStore.enqueue(chunk, on: connection)
            }
        } catch {
            throw FerryStore.translate(error)
        }
    }

    /// Destinations that two or more jobs written by this enqueue target, at most `limit` of them, in the order of
    /// their first job. Destinations of the URI schemes in `caseFolded` (providers whose paths ignore case, where
    /// `/A.jpg` and `/a.jpg` are one file) are compared case-folded, all others as written. Folder destinations
    /// (fetches that list and fan out) are not files and are left out.
    ///
    /// The check runs in PostgreSQL over the rows this transaction wrote (their `xmin`), inside the id range of
    /// this enqueue, so the client keeps no set of paths whatever the number of jobs.
    public func destinationCollisions(limit: Int = 20, caseFolded: [String] = []) async throws -> [DestinationCollision] {
        guard let range = idRange.withLock({ $0 }) else { return [] }
        do {
            return try await transaction.run { connection in
                let result = try connection.query(
                    """
                    WITH mine AS (
                        SELECT job_id, source, destination,
                               CASE WHEN split_part(destination, ':', 1) = ANY(string_to_array($4::text, ',')) THEN lower(destination) ELSE destination END AS target
                          FROM ferry.jobs
                         WHERE job_id BETWEEN $1::uuid AND $2::uuid AND xmin = pg_current_xact_id()::xid
                           AND right(destination, 1) <> '/'
                    ), doubled AS (
                        -- Counting first: the sources are gathered for the few doubled targets only.
                        SELECT target, count(*) AS jobs FROM mine GROUP BY target HAVING count(*) > 1 ORDER BY target LIMIT $3::int
                    )
                    SELECT (array_agg(m.destination ORDER BY m.job_id))[1], d.jobs,
                           to_json((array_agg(m.source ORDER BY m.job_id))[1:50])::text
                      FROM doubled d JOIN mine m USING (target)
                     GROUP BY d.target, d.jobs
                     ORDER BY min(m.job_id::text)
                    """,
                    [range.first, range.last, limit, caseFolded.joined(separator: ",")])
                return try result.rows.map { row in
                    DestinationCollision(
                        destination: try row.decode(String.self, at: 0), jobs: try row.decode(Int.self, at: 1),
                        sources: (try? JSONValue.parse(try row.decode(String.self, at: 2)))?.arrayValue?.compactMap(\.stringValue) ?? [])
                }
            }
        } catch {
            throw FerryStore.translate(error)
        }
    }
}
