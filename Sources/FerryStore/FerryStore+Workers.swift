import FerryCore
import Foundation
import Postgres

extension FerryStore {
    /// Registers (or re-registers) a worker; its heartbeat starts now.
    public func register(_ worker: WorkerRegistration) async throws {
        try await run("""
            INSERT INTO ferry.workers (name, queues, concurrency, host, pid, version)
            VALUES ($1, $2::text[], $3, $4, $5, $6)
            ON CONFLICT (name) DO UPDATE
               SET queues = EXCLUDED.queues, concurrency = EXCLUDED.concurrency, host = EXCLUDED.host,
                   pid = EXCLUDED.pid, version = EXCLUDED.version, heartbeat_at = now(), stopping = false
            """, [worker.name, PostgresArray(worker.queues), worker.concurrency, worker.host, worker.pid, worker.version])
    }

    /// One heartbeat: a single-row update per worker per interval (never per job). Returns false when the
    /// worker's row is gone (it was declared dead), so the caller re-registers.
    public func heartbeat(worker: String, stopping: Bool = false) async throws -> Bool {
        let updated = try await run(
            "UPDATE ferry.workers SET heartbeat_at = now(), stopping = $2 WHERE name = $1", [worker, stopping])
        return updated > 0
    }

    /// Replaces this worker's rows of `ferry.live_progress` with `jobs` (bytes moved beyond their durable progress):
    /// one statement, whatever the number of jobs.
    public func publishLiveProgress(worker: String, jobs: [(jobID: UUID, batch: String?, bytes: Int64)]) async throws {
        let sql = """
            WITH gone AS (
                DELETE FROM ferry.live_progress WHERE worker = $1 AND job_id <> ALL ($2::uuid[])
            )
            INSERT INTO ferry.live_progress AS p (job_id, worker, batch, bytes_done, updated_at)
            SELECT u.job_id, $1, u.batch, u.bytes, now()
              FROM unnest($2::uuid[], $3::text[], $4::bigint[]) AS u(job_id, batch, bytes)
            ON CONFLICT (job_id) DO UPDATE
               SET worker = excluded.worker, batch = excluded.batch, bytes_done = excluded.bytes_done,
                   updated_at = excluded.updated_at
            """
        _ = try await run(
            sql,
            [worker, PostgresArray(jobs.map(\.jobID)), PostgresArray(jobs.map(\.batch)), PostgresArray(jobs.map(\.bytes))])
    }

    /// Removes a worker's row at a clean exit.
    public func deregister(worker: String) async throws {
        try await run("DELETE FROM ferry.workers WHERE name = $1", [worker])
    }

    /// Puts back jobs of workers whose heartbeat is older than `staleAfter` (exactly once across all workers); a job
    /// rescued for the `poisonAfter`-th time since its last retry fails as poison instead (0: never).
    public func rescueStaleJobs(staleAfter: Duration, poisonAfter: Int) async throws -> [RescuedJob] {
        let seconds = Double(staleAfter.components.seconds) + Double(staleAfter.components.attoseconds) / 1e18
        do {
            return try await client.withConnection { connection in
                // Kind and queue (for the metrics' labels) never change, so the statement's snapshot has them; one
                // primary-key probe per rescued job.
                try connection.query(
                    """
                    SELECT r.job_id, r.outcome, r.worker,
                           (SELECT j.kind FROM ferry.jobs j WHERE j.job_id = r.job_id) AS kind,
                           (SELECT j.queue FROM ferry.jobs j WHERE j.job_id = r.job_id) AS queue
                      FROM ferry.rescue_stale_jobs(make_interval(secs => $1), $2) r
                    """, [seconds, poisonAfter]
                ).rows.map { row in
                    RescuedJob(
                        jobID: try row.decode(UUID.self, column: "job_id"), outcome: try row.decode(String.self, column: "outcome"),
                        worker: try row.decode(String?.self, column: "worker"),
                        kind: try row.decode(String?.self, column: "kind").flatMap(JobKind.init(rawValue:)),
                        queue: try row.decode(String?.self, column: "queue"))
                }
            }
        } catch {
            throw Self.translate(error)
        }
    }

    /// Releases claims the database attributes to `worker` that it is not running (their reply was lost when
    /// the connection dropped after commit). Returns the released jobs.
    public func releaseOrphanedClaims(worker: String, running: [UUID], grace: Duration) async throws -> [UUID] {
        let seconds = Double(grace.components.seconds) + Double(grace.components.attoseconds) / 1e18
        do {
            return try await client.withConnection { connection in
                try connection.query(
                    "SELECT job_id FROM ferry.release_orphaned_claims($1, $2::uuid[], make_interval(secs => $3))",
                    [worker, PostgresArray(running), seconds]
                ).rows.map { try $0.decode(UUID.self, column: "job_id") }
            }
        } catch {
            throw Self.translate(error)
        }
    }

    /// Running jobs of `worker` that someone asked to cancel.
    public func cancelRequests(worker: String) async throws -> Set<UUID> {
        do {
            return try await client.withConnection { connection in
                Set(
                    try connection.query(
                        "SELECT job_id FROM ferry.jobs WHERE state = 'running' AND worker = $1 AND cancel_requested",
                        [worker]
                    ).rows.map { try $0.decode(UUID.self, column: "job_id") })
            }
        } catch {
            throw Self.translate(error)
        }
    }

    /// Records one progress event if the claim is still current, and reports whether a cancel is pending.
    /// Progress of many jobs in one statement (each under its own lease, as `recordProgress(_:)` for one), locked in
    /// job id order like outcomes. The answer has an entry for every job: not accepted when its claim is gone.
    public func recordProgress(_ outcomes: [JobOutcome]) async throws -> [UUID: ProgressAck] {
        guard !outcomes.isEmpty else { return [:] }
        var latest = [UUID: Int]()
        for (index, outcome) in outcomes.enumerated() { latest[outcome.jobID] = index }
        let outcomes = latest.values.map { outcomes[$0] }.sorted { $0.jobID.uuidString.lowercased() < $1.jobID.uuidString.lowercased() }
        // As in `record`: one primary-key probe and lock per job (OFFSET 0 keeps the lease and state checks on the
        // locked row), then one insert for all.
        let sql = """
            WITH u AS (
                SELECT * FROM unnest($1::uuid[], $2::bigint[], $3::jsonb[]) WITH ORDINALITY AS u(job_id, lease, data, n)
            ), target AS (
                SELECT j.job_id, j.version, j.cancel_requested, u.data, u.n
                  FROM u
                 CROSS JOIN LATERAL (SELECT k.job_id, k.version, k.cancel_requested, k.lease, k.state FROM ferry.jobs k
                                      WHERE k.job_id = u.job_id OFFSET 0 FOR UPDATE) j
                 WHERE j.lease = u.lease AND j.state = 'running'
            ), appended AS (
                INSERT INTO ferry.events (job_id, version, type, data)
                SELECT t.job_id, t.version + 1, 'progress', t.data FROM target t ORDER BY t.n
                RETURNING job_id
            )
            SELECT t.job_id, t.cancel_requested FROM target t JOIN appended a ON a.job_id = t.job_id
            """
        let binds: [any PostgresBindable] = [
            PostgresArray(outcomes.map(\.jobID)), PostgresArray(outcomes.map(\.lease)),
            PostgresArray(outcomes.map { outcome -> String in
                var payload = outcome.data
                payload["lease"] = .int(outcome.lease)
                return JSONValue.object(payload).jsonText
            }),
        ]
        do {
            return try await client.withConnection { connection in
                var acks = [UUID: ProgressAck]()
                for outcome in outcomes { acks[outcome.jobID] = ProgressAck(accepted: false, cancelRequested: false) }
                for row in try connection.query(sql, binds).rows {
                    acks[try row.decode(UUID.self, column: "job_id")] =
                        ProgressAck(accepted: true, cancelRequested: try row.decode(Bool.self, column: "cancel_requested"))
                }
                if outcomes.contains(where: { $0.freedAccount != nil && acks[$0.jobID]?.accepted == true }) {
                    try Self.announceCapacity(on: connection)
                }
                return acks
            }
        } catch {
            throw Self.translate(error)
        }
    }

    public func recordProgress(_ outcome: JobOutcome) async throws -> ProgressAck {
        var payload = outcome.data
        payload["lease"] = .int(outcome.lease)
        let data = JSONValue.object(payload).jsonText
        let sql = """
            WITH target AS (
                SELECT job_id, version, cancel_requested FROM ferry.jobs
                 WHERE job_id = $1::uuid AND lease = $2 AND state = 'running'
                   FOR UPDATE
            ), appended AS (
                INSERT INTO ferry.events (job_id, version, type, data)
                SELECT job_id, version + 1, $3, $4::jsonb FROM target
                RETURNING job_id
            )
            SELECT cancel_requested, (SELECT count(*) FROM appended) AS appended FROM target
            """
        do {
            return try await client.withConnection { connection in
                let rows = try connection.query(
                    sql, [outcome.jobID, outcome.lease, outcome.type.rawValue, data]
                ).rows
                guard let row = rows.first else { return ProgressAck(accepted: false, cancelRequested: false) }
                let ack = ProgressAck(
                    accepted: try row.decode(Int.self, column: "appended") == 1,
                    cancelRequested: try row.decode(Bool.self, column: "cancel_requested"))
                if ack.accepted, outcome.freedAccount != nil { try Self.announceCapacity(on: connection) }
                return ack
            }
        } catch {
            throw Self.translate(error)
        }
    }

    @discardableResult
    func run(_ sql: String, _ binds: [any PostgresBindable]) async throws -> Int {
        do {
            return try await client.withConnection { try $0.query(sql, binds).affectedRows }
        } catch {
            throw Self.translate(error)
        }
    }
}
