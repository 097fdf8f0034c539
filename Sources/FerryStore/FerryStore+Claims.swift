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

    /// Appends outcome events (progress, retries, finishes) for many jobs in one call (`ferry.record_outcomes`, whose
    /// plan the session keeps): only under each job's current lease; the others come back rejected.
    public func record(_ outcomes: [JobOutcome]) async throws -> (accepted: Set<UUID>, rejected: Set<UUID>) {
        try await record(outcomes, sentAt: Date())
    }

    /// ``record(_:)`` with the time this process's clock reads as the outcomes are sent. A `run_at` in an
    /// outcome (a retry's, a deferral's) was computed on this host's clock, which may be minutes off the
    /// database's: it is written as the database's `now()` plus its distance from `sent`, so every due time is on
    /// the database's clock, as claims, heartbeats and rescues are.
    public func record(_ outcomes: [JobOutcome], sentAt sent: Date) async throws -> (accepted: Set<UUID>, rejected: Set<UUID>) {
        guard !outcomes.isEmpty else { return ([], []) }
        let (binds, ids) = Self.outcomeBinds(outcomes, sentAt: sent)
        let sql = "SELECT job_id FROM ferry.record_outcomes($1, $2, $3, $4, $5) AS job_id"
        do {
            let accepted = try await client.withConnection { connection in
                Set(try connection.query(sql, binds).rows.map { try $0.decode(UUID.self, column: "job_id") })
            }
            return (accepted, ids.subtracting(accepted))
        } catch {
            throw Self.translate(error)
        }
    }

    /// `record` then `claim` in one call (`ferry.record_then_claim`; see `WorkerStore.recordThenClaim`): one round
    /// trip and one commit, and the claim sees the slots the outcomes freed.
    public func recordThenClaim(_ outcomes: [JobOutcome], worker: String, queues: [String], limit: Int) async throws -> RecordedAndClaimed {
        guard limit > 0, !queues.isEmpty else {
            let (accepted, rejected) = try await record(outcomes)
            return RecordedAndClaimed(accepted: accepted, rejected: rejected, claimed: [])
        }
        let (binds, ids) = Self.outcomeBinds(outcomes, sentAt: Date())
        // Rows naming a written outcome have `recorded` set and every claim column null; claimed rows the reverse.
        let sql = """
            SELECT recorded, \(ClaimedJob.columns)
              FROM (SELECT r.recorded, (r.claimed).* FROM ferry.record_then_claim($1, $2, $3, $4, $5, $6, $7::text[], $8) r) x
            """
        let allBinds = binds + [worker, PostgresArray(queues), limit] as [any PostgresBindable]
        do {
            let rows = try await client.withConnection { connection in try connection.query(sql, allBinds).rows }
            var accepted = Set<UUID>()
            var claimed = [ClaimedJob]()
            for row in rows {
                if let id = try row.decode(UUID?.self, column: "recorded") { accepted.insert(id) } else { claimed.append(try ClaimedJob(row: row)) }
            }
            return RecordedAndClaimed(accepted: accepted, rejected: ids.subtracting(accepted), claimed: claimed.sorted(by: ClaimedJob.claimOrder))
        } catch {
            throw Self.translate(error)
        }
    }

    /// The arguments of `ferry.record_outcomes` for many outcomes, and the jobs they name: one outcome per job (the
    /// latest), in job id order (PostgreSQL's uuid order), the order rows are locked in: the same for every writer.
    static func outcomeBinds(_ outcomes: [JobOutcome], sentAt sent: Date) -> (binds: [any PostgresBindable], jobs: Set<UUID>) {
        var latest = [UUID: Int]()
        for (index, outcome) in outcomes.enumerated() { latest[outcome.jobID] = index }
        let outcomes = latest.values.map { outcomes[$0] }.sorted { $0.jobID.uuidString.lowercased() < $1.jobID.uuidString.lowercased() }
        let binds: [any PostgresBindable] = [
            PostgresArray(outcomes.map(\.jobID)), PostgresArray(outcomes.map(\.lease)),
            PostgresArray(outcomes.map(\.type.rawValue)), PostgresArray(outcomes.map { JSONValue.object($0.data).jsonText }), sent,
        ]
        return (binds, Set(outcomes.map(\.jobID)))
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
