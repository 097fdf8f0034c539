import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Testing

/// `ferry status`'s batch table says what its byte totals are (no "- +" for a total nobody knows, no done
/// greater than the total) and does not print 100% for a batch half of which failed.
@Suite("ferry status: byte totals and percents that say what they are", .tags(.postgres, .process))
struct StatusTotalsTests {
    static func batchLine(_ db: TestDatabase, _ batch: String) async throws -> String {
        let result = try await FerryProcess.run(["status"], databaseURL: db.url)
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(result.lines.first { $0.hasPrefix(batch + " ") }, "\(result.stdout)")
    }

    @Test("unknown sizes, done beyond the known total, and a finished batch with failures")
    func totals() async throws {
        let db = try await TestDatabase.make("statustotals")
        let store = db.store()
        defer { store.client.close() }
        // No size known yet: the bytes done and how many sizes are missing, no total.
        _ = try await WaitCommandTests.enqueue(db, batch: "unsized", queues: ["idle", "idle", "idle"])
        let unsized = try await Self.batchLine(db, "unsized")
        #expect(unsized.contains("0 B (3 sizes unknown)") && !unsized.contains("-+") && !unsized.contains(" - "), "\(unsized)")

        // Half failed, all finished: not 100%.
        _ = try await DashboardTests.seed(store, batch: "halved", queue: "halves", count: 2, failed: 1, succeeded: 1)
        let halved = try await Self.batchLine(db, "halved")
        #expect(halved.contains("50.0% ok") && !halved.contains("100.0%"), "\(halved)")
        #expect(halved.contains("1000 B / 2.0 KiB"), "\(halved)")

        // Some sizes known, more bytes done than they add up to: no "done of total" that reads as more than all.
        let ids = try await WaitCommandTests.enqueue(db, batch: "partial", queues: ["idle", "idle"])
        try await db.query("ALTER TABLE ferry.jobs DISABLE TRIGGER jobs_written_by_projection_only")
        try await db.query("UPDATE ferry.jobs SET bytes_total = 100, bytes_done = 100 WHERE job_id = $1::uuid", [ids[0]])
        try await db.query("UPDATE ferry.jobs SET state = 'running', bytes_done = 5000 WHERE job_id = $1::uuid", [ids[1]])
        try await db.query("ALTER TABLE ferry.jobs ENABLE TRIGGER jobs_written_by_projection_only")
        try await db.query("SELECT ferry.recount_batches()")
        let partial = try await Self.batchLine(db, "partial")
        #expect(partial.contains("(1 size unknown)") && !partial.contains("of at least 100 B"), "\(partial)")
    }
}
