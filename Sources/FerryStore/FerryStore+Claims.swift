import FerryCore
import Foundation
import Postgres

extension FerryStore {
    /// Claims up to `limit` due jobs from `queues` in one statement (`ferry.claim_jobs`): highest priority
    /// first, then oldest `run_at`, `FOR UPDATE SKIP LOCKED` so claimers never wait on each other, at most
    /// `accounts.max_concurrent` running jobs per account across all workers, and a `claimed` event per job.
    /// The claim reads about as many index entries as it returns, however deep the backlog (migration 0008).
    /// Jobs come back in claim order.
    public func claim(worker: String, queues: [String], limit: Int) async throws -> [ClaimedJob] {
        guard limit > 0, !queues.isEmpty else { return [] }
        let sql = "SELECT \(ClaimedJob.columns) FROM ferry.claim_jobs($1, $2::text[], $3)"
        let binds: [any PostgresBindable] = [worker, PostgresArray(queues), limit]
        do {
            return try await client.withConnection { connection in
                try connection.query(sql, binds).rows.map(ClaimedJob.init(row:))
            }.sorted(by: ClaimedJob.claimOrder)
        } catch {
            throw Self.translate(error)
        }
    }

    /// Appends outcome events (progress, retries, finishes) for many jobs in one statement
    /// (``outcomeStatement(_:sentAt:)``): only under each job's current lease; the others come back rejected.
    public func record(_ outcomes: [JobOutcome]) async throws -> (accepted: Set<UUID>, rejected: Set<UUID>) {
        try await record(outcomes, sentAt: Date())
    }

    /// ``record(_:)`` with the time this process's clock reads as the outcomes are sent. A `run_at` in an
    /// outcome (a retry's, a deferral's) was computed on this host's clock, which may be minutes off the
    /// database's: it is written as the database's `now()` plus its distance from `sent`, so every due time is on
    /// the database's clock, as claims, heartbeats and rescues are.
    public func record(_ outcomes: [JobOutcome], sentAt sent: Date) async throws -> (accepted: Set<UUID>, rejected: Set<UUID>) {
        guard !outcomes.isEmpty else { return ([], []) }
        let (sql, binds, ids) = Self.outcomeStatement(outcomes, sentAt: sent)
        do {
            let accepted = try await client.withConnection { connection in
                Set(try connection.query(sql, binds).rows.map { try $0.decode(UUID.self, column: "job_id") })
            }
            return (accepted, ids.subtracting(accepted))
        } catch {
            throw Self.translate(error)
        }
    }

    /// `record` then `claim` in one transaction on one connection (see `WorkerStore.recordThenClaim`): the claim
    /// sees the slots the outcomes freed, and both cost one commit.
    public func recordThenClaim(_ outcomes: [JobOutcome], worker: String, queues: [String], limit: Int) async throws -> RecordedAndClaimed {
        guard limit > 0, !queues.isEmpty else {
            let (accepted, rejected) = try await record(outcomes)
            return RecordedAndClaimed(accepted: accepted, rejected: rejected, claimed: [])
        }
        let (sql, binds, ids) = outcomes.isEmpty ? ("", [], []) : Self.outcomeStatement(outcomes, sentAt: Date())
        let claimSQL = "SELECT \(ClaimedJob.columns) FROM ferry.claim_jobs($1, $2::text[], $3)"
        let claimBinds: [any PostgresBindable] = [worker, PostgresArray(queues), limit]
        do {
            let (accepted, claimed) = try await client.withTransaction { connection in
                let accepted = sql.isEmpty
                    ? Set<UUID>() : Set(try connection.query(sql, binds).rows.map { try $0.decode(UUID.self, column: "job_id") })
                return (accepted, try connection.query(claimSQL, claimBinds).rows.map(ClaimedJob.init(row:)))
            }
            return RecordedAndClaimed(accepted: accepted, rejected: ids.subtracting(accepted), claimed: claimed.sorted(by: ClaimedJob.claimOrder))
        } catch {
            throw Self.translate(error)
        }
    }

    /// The statement that appends outcome events (progress, retries, finishes) for many jobs at once, and the jobs
    /// it names.
    ///
    /// Each event is written only if its lease is still the job's current claim; the others are returned as
    /// rejected: their claim was lost (rescued after a missed heartbeat, or cancelled), and whatever the worker
    /// did must not overwrite the newer attempt.
    static func outcomeStatement(_ outcomes: [JobOutcome], sentAt sent: Date) -> (sql: String, binds: [any PostgresBindable], jobs: Set<UUID>) {
        // One event per job per statement: keep the latest outcome of each job.
        var latest = [UUID: Int]()
        for (index, outcome) in outcomes.enumerated() { latest[outcome.jobID] = index }
        // Job id order (PostgreSQL's uuid order) is the order rows are locked in: the same for every writer.
        let outcomes = latest.values.map { outcomes[$0] }.sorted { $0.jobID.uuidString.lowercased() < $1.jobID.uuidString.lowercased() }
        // One primary-key probe per outcome: joining on the lease and state instead lets the planner (whose
        // statistics may say nothing is running) scan every running job of the fleet for each statement.
        // OFFSET 0 keeps the lease and state checks outside the locking subquery, so they see the locked row.
        let sql = """
            INSERT INTO ferry.events (job_id, version, type, data)
            SELECT j.job_id, j.version + 1, u.type,
                   u.data || jsonb_build_object('lease', u.lease)
                     || CASE WHEN u.data ? 'run_at'
                             THEN jsonb_build_object('run_at', now() + ((u.data->>'run_at')::timestamptz - $5::timestamptz))
                             ELSE '{}'::jsonb END
              FROM unnest($1::uuid[], $2::bigint[], $3::text[], $4::jsonb[]) AS u(job_id, lease, type, data)
             CROSS JOIN LATERAL (SELECT k.job_id, k.version, k.lease, k.state FROM ferry.jobs k
                                  WHERE k.job_id = u.job_id OFFSET 0 FOR UPDATE) j
             WHERE j.lease = u.lease AND j.state = 'running'
            RETURNING job_id
            """
        let binds: [any PostgresBindable] = [
            PostgresArray(outcomes.map(\.jobID)), PostgresArray(outcomes.map(\.lease)),
            PostgresArray(outcomes.map(\.type.rawValue)), PostgresArray(outcomes.map { JSONValue.object($0.data).jsonText }), sent,
        ]
        return (sql, binds, Set(outcomes.map(\.jobID)))
    }

    /// Tells every listening worker that account capacity freed (`NOTIFY ferry_jobs`, payload-free, folded with
    /// any other in the transaction): a worker whose claim came back short because an account was at its cap
    /// claims again now instead of at its next poll.
    public func announceCapacity() async throws {
        do {
            try await client.withConnection { try Self.announceCapacity(on: $0) }
        } catch {
            throw Self.translate(error)
        }
    }

    /// `NOTIFY ferry_jobs` on a connection in hand (after a progress event that ended a transfer of a capped
    /// account: its slot is free for another transfer although the job still waits for its commit).
    static func announceCapacity(on connection: PostgresConnection) throws {
        _ = try connection.query("SELECT pg_notify('ferry_jobs', '')")
    }
}
