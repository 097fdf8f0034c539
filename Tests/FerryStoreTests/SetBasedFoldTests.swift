import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Postgres
import Testing

/// The set-based fold of `claimed`, `progress` and `succeeded` (migration 0009) is a second spelling of
/// `ferry.apply_event`; replay uses only `apply_event`, so a replay equal to the stored rows proves they agree.
@Suite("set-based fold", .tags(.postgres))
struct SetBasedFoldTests {
    @Test("every payload shape of the hot events folds exactly as apply_event replays it, one job or many per statement")
    func fastFoldEqualsReplay() async throws {
        let db = try await TestDatabase.make("fold")
        let store = db.store()
        defer { store.client.close() }
        let progress = [
            #"{"bytes_done": 10}"#, #"{"bytes_done": 20, "bytes_total": 900}"#, #"{"session": {"id": "s1", "offset": 8}}"#,
            #"{"session": null}"#, #"{"bytes_done": null, "bytes_total": null}"#, "{}",
        ]
        let finishes = [#"{}"#, #"{"bytes_done": 900}"#, #"{"result": {"rev": "abc"}}"#, #"{"result": null, "bytes_total": 5}"#]
        // One job per combination, each walked through claimed → progress → succeeded one event at a time.
        var jobs = [UUID]()
        for progressData in progress {
            for finishData in finishes {
                let job = try await store.enqueue([StoreFixtures.fetchSpec()])[0].jobID
                jobs.append(job)
                _ = try await store.append(jobID: job, expectedVersion: 1, type: .claimed, data: try JSONValue.parse(#"{"lease": 1, "worker": "w"}"#))
                _ = try await store.append(jobID: job, expectedVersion: 2, type: .progress, data: Self.withLease(progressData, 1))
                _ = try await store.append(jobID: job, expectedVersion: 3, type: .succeeded, data: Self.withLease(finishData, 1))
            }
        }
        // Many jobs per statement, mixed types, including a retried job whose second claim starts from attempt 1.
        let batch = try await store.enqueue((0..<50).map { _ in StoreFixtures.fetchSpec() }).map(\.jobID)
        let claimed = try await store.claim(worker: "many", queues: ["default"], limit: 100)
        #expect(claimed.count == 50)
        let retried = claimed[0]
        _ = try await store.record(claimed.dropFirst().map { .progress($0, bytesDone: 7) } + [.retry(retried, error: "e", at: Date())])
        let again = try await store.claim(worker: "many", queues: ["default"], limit: 100)
        #expect(again.map(\.jobID) == [retried.jobID] && again[0].attempt == 2 && again[0].lease == 2)
        _ = try await store.record(claimed.dropFirst().map { .succeeded($0, bytes: 1000) } + [.succeeded(again[0], bytes: 3)])

        let report = try await store.projection.verify()
        #expect(report.differences.isEmpty, "\(report)")
        let row = try await db.query(
            "SELECT state, attempt, lease, worker, bytes_done, finished_at IS NOT NULL FROM ferry.jobs WHERE job_id = $1::uuid",
            [retried.jobID]).rows[0]
        #expect(try row.decode(String.self, at: 0) == "succeeded" && row.decode(Int.self, at: 1) == 2 && row.decode(Int.self, at: 2) == 2)
        #expect(try row.decode(String?.self, at: 3) == nil && row.decode(Int.self, at: 4) == 3 && row.decode(Bool.self, at: 5))
        #expect(jobs.count + batch.count == 74)
    }

    @Test("events that do not fit are refused with the same SQLSTATE as before, whole statement rolled back")
    func misfitsAreRefused() async throws {
        let db = try await TestDatabase.make("foldmisfit")
        let store = db.store()
        defer { store.client.close() }
        let ids = try await store.enqueue((0..<3).map { _ in StoreFixtures.fetchSpec() }).map(\.jobID)
        let cases: [(String, String)] = [
            // claimed with the wrong next lease, progress on a queued job, succeeded with a version gap
            (#"INSERT INTO ferry.events (job_id, version, type, data) VALUES ($1::uuid, 2, 'claimed', '{"lease": 5, "worker": "w"}')"#, "FY001"),
            (#"INSERT INTO ferry.events (job_id, version, type, data) VALUES ($1::uuid, 2, 'progress', '{"lease": 0}')"#, "FY001"),
            (#"INSERT INTO ferry.events (job_id, version, type, data) VALUES ($1::uuid, 3, 'claimed', '{"lease": 1, "worker": "w"}')"#, "FY003"),
        ]
        for (sql, state) in cases {
            await #expect {
                try await db.query(sql, [ids[0]])
            } throws: { error in
                (error as? PostgresError)?.sqlState?.code == state
            }
        }
        // A statement where two rows fit the fast path and one does not (the wrong next lease): nothing of it stays.
        await expectSQLState("FY001") {
            try await db.query("""
                INSERT INTO ferry.events (job_id, version, type, data)
                SELECT id, 2, 'claimed', jsonb_build_object('lease', CASE WHEN id = $3::uuid THEN 9 ELSE 1 END, 'worker', 'w')
                  FROM unnest(ARRAY[$1::uuid, $2::uuid, $3::uuid]) AS id
                """, [ids[0], ids[1], ids[2]])
        }
        let running = try await db.query("SELECT count(*) FROM ferry.jobs WHERE state <> 'queued'").rows[0].decode(Int.self, at: 0)
        #expect(running == 0)
        #expect(try await store.projection.verify().differences.isEmpty)
    }

    static func withLease(_ json: String, _ lease: Int64) throws -> JSONValue {
        guard case .object(var object) = try JSONValue.parse(json) else { return .object(["lease": .int(lease)]) }
        object["lease"] = .int(lease)
        return .object(object)
    }
}
