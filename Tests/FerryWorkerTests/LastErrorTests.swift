import FerryCore
import FerryTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A job that succeeded on a later attempt tells one story: `succeeded`, no error, in every view; the failed
/// attempts stay in its history.
@Suite("last error after success", .tags(.postgres, .process))
struct LastErrorTests {
    @Test("a job that failed once and then succeeded shows no last_error; the error stays in ferry events; verify clean")
    func clearedOnSuccess() async throws {
        let db = try await TestDatabase.make("last_error_cleared")
        let enqueued = try await FerryProcess.run(
            ["enqueue", "fetch", "https://example.com/a.jpg", "--to", "/srv/in/", "--json"], databaseURL: db.url)
        #expect(enqueued.status == 0, "\(enqueued.stderr)")
        let worker = try TestWorker.start(db, name: "second-time", ["--handler", "fail-until:2", "--retry-base", "0.05"])
        try await eventually(timeout: .seconds(300), "the job to succeed") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == 1
        }
        worker.signal(SIGTERM)
        _ = try await worker.waitForExit()

        let row = try await db.query("SELECT attempt, last_error FROM ferry.job_status").rows[0]
        #expect(try row.decode(Int.self, at: 0) == 2, "it took two attempts")
        #expect(try row.decode(String?.self, at: 1) == nil, "no error on a job that succeeded")
        let history = try await db.query(
            "SELECT count(*) FROM ferry.events WHERE type = 'retry_scheduled' AND data->>'error' IS NOT NULL").rows[0].decode(Int.self, at: 0)
        #expect(history == 1, "the first attempt's error is in the history")
        let verify = try await FerryProcess.run(["projection", "verify"], databaseURL: db.url)
        #expect(verify.status == 0, "the Swift fold agrees: \(verify.stdout) \(verify.stderr)")
    }
}
