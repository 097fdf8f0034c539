import FerryCore
import Foundation
import Postgres

extension FerryStore {
    /// Replays the jobs of `scope` from the event log with ``JobFold`` (the Swift spelling of `ferry.apply_event`)
    /// and compares each replayed row with the stored projection, column by column as PostgreSQL prints them.
    /// Runs on one consistent snapshot (REPEATABLE READ), chunk by chunk, so memory stays bounded.
    ///
    /// `chunkEvents` sets how many events a chunk holds (tests use small chunks to cross chunk boundaries).
    public func verifyProjection(limit: Int = 50, scope: ProjectionScope = .all, chunkEvents: Int = 200_000) async throws -> ProjectionReport {
        do {
            return try await client.withTransaction(isolation: .repeatableRead) { connection in
                let lastPosition = try connection.query("SELECT coalesce(max(position), 0) FROM ferry.events").rows[0]
                    .decode(Int64.self, at: 0)
                var comparison = ProjectionComparison(limit: limit)
                var replay = ProjectionReplay(connection: connection, chunkEvents: chunkEvents)
                try replay.forEachChunk(scope) { replay, range in
                    try replay.compare(range, into: &comparison)
                }
                return ProjectionReport(
                    jobsChecked: comparison.jobsChecked, eventsReplayed: replay.eventsReplayed, scope: scope,
                    lastPosition: lastPosition, differences: comparison.differences, truncated: comparison.truncated)
            }
        } catch {
            throw Self.translate(error)
        }
    }

    /// Rebuilds `ferry.jobs` from the event log, folding in Swift and copying the rows in, in one transaction that
    /// blocks appends while it runs. Needs the schema owner's privileges. Returns the number of jobs.
    ///
    /// The old rows go with TRUNCATE (no dead tuples to vacuum): a REPEATABLE READ reader whose snapshot predates
    /// the rebuild sees an empty projection afterwards, as TRUNCATE is not MVCC-safe. Throws
    /// ``ProjectionReplayError`` (nothing changed) when an event does not fold.
    public func rebuildProjection(chunkEvents: Int = 200_000) async throws -> Int {
        do {
            return try await client.withTransaction { connection in
                try connection.execute("LOCK TABLE ferry.events IN SHARE MODE")
                try connection.execute("LOCK TABLE ferry.jobs IN ACCESS EXCLUSIVE MODE")
                try connection.execute("TRUNCATE ferry.jobs")
                var rebuilt = 0
                var replay = ProjectionReplay(connection: connection, chunkEvents: chunkEvents)
                try replay.forEachChunk(.all) { replay, range in
                    try replay.write()
                    rebuilt += replay.jobs.count
                }
                return rebuilt
            }
        } catch {
            throw Self.translate(error)
        }
    }
}
