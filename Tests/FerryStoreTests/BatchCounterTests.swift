import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Postgres
import Testing

@Suite("batch and throughput counters", .tags(.postgres))
struct BatchCounterTests {
    /// ferry.batch_status computed the old way, from every job of the batch (timestamps that a requeue can move
    /// are left out: the counters keep the first start).
    static let naive = """
        SELECT j.batch, count(*)::text, count(*) FILTER (WHERE j.state = 'queued')::text,
               count(*) FILTER (WHERE j.state = 'running')::text, count(*) FILTER (WHERE j.state = 'succeeded')::text,
               count(*) FILTER (WHERE j.state = 'failed')::text, count(*) FILTER (WHERE j.state = 'cancelled')::text,
               sum(CASE WHEN j.state = 'succeeded' THEN coalesce(j.bytes_total, j.bytes_done)
                        ELSE least(j.bytes_done, coalesce(j.bytes_total, j.bytes_done)) END)::bigint::text,
               coalesce(sum(j.bytes_total)::bigint::text, 'null'),
               (CASE WHEN bool_and(j.state IN ('succeeded', 'failed', 'cancelled', 'discarded')) THEN 100.0
                     WHEN count(j.bytes_total) = count(*) AND sum(j.bytes_total) > 0
                     THEN least(99.9, round(100.0 * sum(CASE WHEN j.state = 'succeeded' THEN j.bytes_total
                                                             ELSE least(j.bytes_done, j.bytes_total) END) / sum(j.bytes_total), 1))
                     ELSE least(99.9, round(100.0 * count(*) FILTER (WHERE j.state IN ('succeeded', 'failed', 'cancelled', 'discarded'))
                                            / count(*), 1)) END)::numeric(4,1)::text,
               bool_and(j.state IN ('succeeded', 'failed', 'cancelled', 'discarded'))::text,
               min(j.enqueued_at)::text,
               coalesce((CASE WHEN bool_and(j.state IN ('succeeded', 'failed', 'cancelled', 'discarded')) THEN max(j.finished_at) END)::text, 'null'),
               (count(*) - count(j.bytes_total))::text
          FROM ferry.jobs j WHERE j.batch IS NOT NULL GROUP BY j.batch ORDER BY j.batch
        """
    static let fromView = """
        SELECT batch, jobs::text, queued::text, running::text, succeeded::text, failed::text, cancelled::text,
               bytes_done::text, coalesce(bytes_total::text, 'null'), percent::text, done::text, enqueued_at::text,
               coalesce(finished_at::text, 'null'), sizes_unknown::text
          FROM ferry.batch_status ORDER BY batch
        """

    static func rows(_ db: TestDatabase, _ sql: String) async throws -> [[String]] {
        try await db.query(sql).rows.map { row in try (0..<14).map { try row.decode(String.self, at: $0) } }
    }

    @Test("after concurrent churn batch_status equals counting every job, before and after compaction; throughput equals the finish events")
    func countersMatch() async throws {
        let db = try await TestDatabase.make("batchcount")
        let store = db.store(poolSize: 8)
        defer { store.client.close() }
        // Uploads with sizes and partial progress, and fetches whose size comes with their first progress.
        let uploads = (0..<30).map { index in
            JobSpec(jobID: UUIDv7.make(), kind: .upload, source: "/srv/out/\(index).bin", destination: "file:///srv/in/",
                    account: nil, queue: "default", batch: "sized", priority: 0, maxAttempts: 3, runAt: nil,
                    idempotencyKey: nil, metadata: nil, bytesTotal: 5000 + Int64(index), details: [:])
        }
        _ = try await store.enqueue(uploads)
        let claimed = try await store.claim(worker: "w", queues: ["default"], limit: 10)
        _ = try await store.record(claimed.map { .progress($0, bytesDone: 7000, session: nil) })   // more than the size
        try await ProjectionTests().churn(store, db: db, jobs: 400, workers: 4)
        #expect(try await store.projection.batchCountDifferences().isEmpty)
        #expect(try await db.query("SELECT count(*) FROM ferry.batch_count_deltas").rows[0].decode(Int.self, at: 0) > 0)
        #expect(try await Self.rows(db, Self.fromView) == Self.rows(db, Self.naive))

        _ = try await store.compactCounters()
        #expect(try await db.query("SELECT count(*) FROM ferry.batch_count_deltas").rows[0].decode(Int.self, at: 0) == 0)
        #expect(try await db.query("SELECT count(*) FROM ferry.throughput_deltas").rows[0].decode(Int.self, at: 0) == 0)
        #expect(try await store.projection.batchCountDifferences().isEmpty)
        let view = try await Self.rows(db, Self.fromView)
        #expect(view == (try await Self.rows(db, Self.naive)))
        #expect(view.count == 8, "the 7 churned batches and the sized one")
        // Each batch's walk starts at its lowest job id.
        #expect(try await db.query(
            """
            SELECT count(*) FROM ferry.batch_status s
             WHERE s.first_job_id IS DISTINCT FROM (SELECT min(j.job_id::text COLLATE "C")::uuid FROM ferry.jobs j WHERE j.batch = s.batch)
            """).rows[0].decode(Int.self, at: 0) == 0)

        // Throughput counts what finished per minute: every succeeded and every failed event (a job retried and
        // finished again counts again), and the bytes of the successes.
        let events = try await db.query(
            "SELECT count(*) FILTER (WHERE type = 'succeeded'), count(*) FILTER (WHERE type = 'failed') FROM ferry.events"
        ).rows[0]
        let throughput = try await db.query(
            "SELECT coalesce(sum(succeeded), 0)::bigint, coalesce(sum(failed), 0)::bigint, coalesce(sum(bytes), 0)::bigint FROM ferry.throughput"
        ).rows[0]
        #expect(try throughput.decode(Int.self, at: 0) == events.decode(Int.self, at: 0))
        #expect(try throughput.decode(Int.self, at: 1) == events.decode(Int.self, at: 1))
        #expect(try throughput.decode(Int.self, at: 0) > 0 && throughput.decode(Int.self, at: 1) > 0)
        // Sizes never change here: a success counts its job's size (1000 for the churned fetches).
        let bytes = try await db.query(
            "SELECT sum(j.bytes_total)::bigint FROM ferry.events e JOIN ferry.jobs j USING (job_id) WHERE e.type = 'succeeded'"
        ).rows[0].decode(Int.self, at: 0)
        #expect(try throughput.decode(Int.self, at: 2) == bytes)
    }

    @Test("verify names a wrong batch counter and its figure; rebuild recounts", .tags(.process))
    func wrongCounterCaught() async throws {
        let db = try await TestDatabase.make("batchbad")
        let store = db.store()
        defer { store.client.close() }
        _ = try await store.enqueue((0..<5).map { _ in StoreFixtures.fetchSpec(batch: "trip") })
        try await db.query(
            """
            INSERT INTO ferry.batch_count_deltas (batch, jobs, queued, running, succeeded, failed, cancelled, bytes_done, bytes_total, sized)
            VALUES ('trip', 0, 0, 0, 0, 0, 0, 0, 250, 0)
            """)
        #expect(try await store.projection.batchCountDifferences() == [BatchCountDifference(batch: "trip", field: "bytes_total", counted: 5250, actual: 5000)])
        let cli = try await FerryProcess.run(["projection", "verify"], databaseURL: db.url)
        #expect(cli.status == 1)
        #expect(cli.stdout.contains("batch counter trip/bytes_total: counted 5250, projection holds 5000"), "\(cli.stdout)")
        _ = try await store.projection.rebuild()
        #expect(try await store.projection.batchCountDifferences().isEmpty)
        #expect(try await FerryProcess.run(["projection", "verify"], databaseURL: db.url).status == 0)
    }

    /// Every plan node that reads ferry.jobs, as (node type, index name).
    static func jobsNodes(_ node: JSONValue) -> [(String, String?)] {
        var found = [(String, String?)]()
        if node["Relation Name"]?.stringValue == "jobs" {
            found.append((node["Node Type"]?.stringValue ?? "?", node["Index Name"]?.stringValue))
        }
        for child in node["Plans"]?.arrayValue ?? [] { found += jobsNodes(child) }
        return found
    }

    @Test("batch_status and throughput read the counters, and ferry.jobs only by key for jobs with live progress (EXPLAIN)")
    func plansAvoidJobs() async throws {
        let db = try await TestDatabase.make("batchplan")
        let store = db.store()
        defer { store.client.close() }
        _ = try await store.enqueue((0..<50).map { index in StoreFixtures.fetchSpec(batch: "b\(index % 3)") })
        for sql in ["SELECT * FROM ferry.batch_status ORDER BY enqueued_at DESC LIMIT 200",
                    "SELECT * FROM ferry.batch_status WHERE batch = 'b1'", "SELECT * FROM ferry.throughput"] {
            let plan = try await db.query("EXPLAIN (FORMAT JSON) " + sql).rows[0].decode(String.self, at: 0)
            let root = try #require(try JSONValue.parse(plan).arrayValue?.first?["Plan"])
            // Live bytes (migration 0026) probe a job per live row; nothing may scan the jobs.
            for (type, index) in Self.jobsNodes(root) {
                #expect(type == "Index Scan" && (index == "jobs_pkey" || index == "jobs_running_idx"), "\(sql) reads ferry.jobs by \(type) \(index ?? ""): \(plan)")
            }
        }
    }
}
