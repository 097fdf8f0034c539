import FerryCore
import Logging
import Postgres

/// The write side of Ferry in PostgreSQL: enqueue, commands, claims and outcomes (the `WorkerStore`), with the
/// aggregates reached from it (accounts, schedules, projection, archive). The reads (status, batches, search,
/// trends, the dashboard) are `FerryReads`, on the same connections through `reads`.
///
/// Every write is an append to `ferry.events`; the projection follows in the same statement (see
/// `migrations/definitions/330_project_events.sql`). Methods are safe to call concurrently.
public final class FerryStore: Sendable {
    public let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Maps Ferry's own SQLSTATEs (raised by `ferry.apply_event`) and the stream-version key to typed errors.
    static func translate(_ error: any Error) -> any Error {
        guard let error = error as? PostgresError, let state = error.sqlState else { return error }
        let message = error.serverMessage ?? "rejected"
        switch state.code {
        case "FY001": return FerryStoreError(.staleLease, message)
        case "FY002": return FerryStoreError(.invalidTransition, message)
        case "FY003": return FerryStoreError(.versionConflict, message)
        case "FY004": return FerryStoreError(.notFound, message)
        default: break
        }
        if state == .uniqueViolation && error.constraint == "events_job_version_key" {
            return FerryStoreError(.versionConflict, "another event was appended to the job first")
        }
        if state == .undefinedTable {
            return FerryStoreError(.notMigrated, "the database has no Ferry schema", fix: "run ferry migrate first")
        }
        return error
    }
}
