import FerryCore
import FerryStore
import FerryTestSupport
import FerryTesting
import Foundation
import Testing

/// A job that succeeded on a later attempt tells one story: `succeeded`, no error, in every view; the failed
/// attempts stay in its history. A real worker in process on PostgreSQL (`PostgresWorker`).
@Suite("last error after success", .tags(.postgres))
struct LastErrorTests {
    @Test("a job that failed once and then succeeded shows no last_error; the error stays in ferry events; verify clean")
    func clearedOnSuccess() async throws {
        let db = try await TestDatabase.make("last_error_cleared")
        try await WorkerOnPostgresTests.enqueue(db, [.test()])
        let worker = try PostgresWorker(
            db, script: "fail-until:2", configuration: WorkerOnPostgresTests.configuration(name: "second-time", retryBase: 0.05))
        try await eventually(timeout: .seconds(300), "the job to succeed") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == 1
        }
        try await worker.stop()

        let row = try await db.query("SELECT attempt, last_error FROM ferry.job_status").rows[0]
        #expect(try row.decode(Int.self, at: 0) == 2, "it took two attempts")
        #expect(try row.decode(String?.self, at: 1) == nil, "no error on a job that succeeded")
        let history = try await db.query(
            "SELECT count(*) FROM ferry.events WHERE type = 'retry_scheduled' AND data->>'error' IS NOT NULL").rows[0].decode(Int.self, at: 0)
        #expect(history == 1, "the first attempt's error is in the history")
        let store = db.store(poolSize: 2)
        defer { store.client.close() }
        let verify = try await store.projection.verify()
        #expect(verify.isClean, "the Swift fold agrees: \(verify.text)")
    }
}
