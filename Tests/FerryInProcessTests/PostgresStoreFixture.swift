import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Postgres

/// The contract's view of `FerryStore` on a fresh migrated database.
struct PostgresStoreFixture: StoreFixture {
    let db: TestDatabase
    let ferry: FerryStore
    var store: any WorkerStore { ferry }

    static func make(preparedStatements: Bool = true) async throws -> PostgresStoreFixture {
        let db = try await TestDatabase.make("contract")
        return PostgresStoreFixture(db: db, ferry: db.store(preparedStatements: preparedStatements))
    }

    func enqueue(_ specs: [JobSpec]) async throws { _ = try await ferry.enqueue(specs) }

    func cancel(_ jobID: UUID) async throws { _ = try await ferry.cancel(.job(jobID), requestedBy: "test") }

    func snapshot(_ jobID: UUID) async throws -> JobSnapshot {
        let rows = try await db.query(
            """
            SELECT state, attempt, lease, worker, cancel_requested, run_at, queue, batch, priority, bytes_done, last_error
              FROM ferry.jobs WHERE job_id = $1
            """, [jobID]
        ).rows
        guard let row = rows.first, let state = JobState(rawValue: try row.decode(String.self, at: 0)) else {
            throw FerryStoreError(.notFound, "no such job")
        }
        return JobSnapshot(
            state: state, attempt: try row.decode(Int.self, at: 1), lease: try row.decode(Int64.self, at: 2),
            worker: try row.decode(String?.self, at: 3), cancelRequested: try row.decode(Bool.self, at: 4),
            runAt: try row.decode(PostgresTimestamp.self, at: 5).date, queue: try row.decode(String.self, at: 6),
            batch: try row.decode(String?.self, at: 7), priority: try row.decode(Int.self, at: 8),
            bytesDone: try row.decode(Int64.self, at: 9), lastError: try row.decode(String?.self, at: 10))
    }

    func batch(_ batch: String) async throws -> [UUID] {
        try await db.query("SELECT job_id FROM ferry.jobs WHERE batch = $1 ORDER BY job_id", [batch]).rows.map {
            try $0.decode(UUID.self, at: 0)
        }
    }

    func addAccount(_ name: String, maxConcurrent: Int) async throws {
        try await db.query(
            "INSERT INTO ferry.accounts (name, provider, max_concurrent) VALUES ($1, 'dropbox', $2)", [name, maxConcurrent])
    }

    func setAccountLimits(_ name: String, requestsPerSecond: Double?, bytesPerSecond: Int64?) async throws {
        try await db.query(
            "UPDATE ferry.accounts SET settings = jsonb_strip_nulls(jsonb_build_object('tps_limit', $2::float8, 'bwlimit', $3::bigint)) WHERE name = $1",
            [name, requestsPerSecond, bytesPerSecond])
    }

    func expireAccountShares(of worker: String) async throws {
        try await db.query("UPDATE ferry.account_shares SET expires_at = now() - interval '1 second' WHERE worker = $1", [worker])
    }

    func pauseQueue(_ queue: String) async throws {
        _ = try await ferry.setQueuePaused(queue, paused: true, reason: nil, by: "test")
    }

    func stopHeartbeats(of worker: String) async throws {
        try await db.query("UPDATE ferry.workers SET heartbeat_at = now() - interval '1 hour' WHERE name = $1", [worker])
    }

    func liveBytes(of jobID: UUID) async throws -> Int64? {
        try await db.query("SELECT bytes_done FROM ferry.live_progress WHERE job_id = $1", [jobID]).rows.first?.decode(Int64.self, at: 0)
    }

    func close() async { ferry.client.close() }
}
