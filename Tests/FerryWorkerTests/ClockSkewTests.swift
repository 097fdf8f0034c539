import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Testing

/// Issue 36: a worker whose clock is minutes off changes nothing. Claims, heartbeats and rescues run on the
/// database's clock and the lease on the worker's monotonic one (``WorkerLease``); the one time a worker computes
/// on its own wall clock is a retry's or a deferral's `run_at` (now + backoff), which the store rebases onto the
/// database's `now()`. A clock 10 minutes ahead would otherwise hold every retried job 10 minutes too long, and
/// one 10 minutes behind would make its backoff nothing (retried at once, again and again). The offset is injected
/// where the worker takes its clock (`record(_:sentAt:)`): libfaketime, preloaded into a worker process, kept it
/// from reading its command line here.
@Suite("a worker clock minutes off", .tags(.postgres))
struct ClockSkewTests {
    @Test("a retry's and a deferral's run_at are on the database's clock, whatever the worker's clock says", arguments: [-600.0, 600.0])
    func skewedRunAt(offset: Double) async throws {
        let db = try await TestDatabase.make("skew")
        let store = db.store()
        defer { store.client.close() }
        try await store.register(WorkerRegistration(name: "skewed", queues: ["default"], concurrency: 2, host: "test", pid: 1))
        for index in 0..<2 { _ = try await SQLEnqueueWorkerTests.enqueue(db, "fetch", "https://example.com/skew-\(index).jpg", "/tmp/skew/") }
        let jobs = try await store.claim(worker: "skewed", queues: ["default"], limit: 2)
        try #require(jobs.count == 2)

        // The worker's clock reads `offset` seconds off the database's; its backoff is 30 s.
        let skewedNow = Date().addingTimeInterval(offset)
        let (accepted, _) = try await store.record(
            [.retry(jobs[0], error: "http_5xx: try again", at: skewedNow.addingTimeInterval(30)),
             .deferred(jobs[1], reason: "no_space: disk full", until: skewedNow.addingTimeInterval(30))],
            sentAt: skewedNow)
        #expect(accepted.count == 2)
        for job in jobs {
            // Measured from the outcome's own event (written at the database's now() of the same transaction), not from
            // when this query runs: a loaded machine took 11 s between the two.
            let row = try await db.query(
                """
                SELECT extract(epoch FROM j.run_at - e.recorded_at)::float8, j.state FROM ferry.jobs j
                  JOIN ferry.events e ON e.job_id = j.job_id AND e.type IN ('retry_scheduled', 'deferred')
                 WHERE j.job_id = $1
                """, [job.jobID]).rows[0]
            let dueIn = try row.decode(Double.self, at: 0)
            #expect(try row.decode(String.self, at: 1) == "queued")
            // 30 s after the database wrote the outcome, not 30 s ± 10 minutes.
            #expect(abs(dueIn - 30) < 1, "due \(dueIn) s after the outcome with the worker's clock \(offset) s off")
        }
    }
}
