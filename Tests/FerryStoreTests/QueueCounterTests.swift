import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Postgres
import Testing

@Suite("queue counters", .tags(.postgres))
struct QueueCounterTests {
    /// ferry.queue_stats computed the old way: counting every job.
    static let naive = """
        SELECT queue, state, count(*)::bigint,
               count(*) FILTER (WHERE state = 'queued' AND run_at <= now())::bigint,
               coalesce(extract(epoch FROM max(now() - run_at) FILTER (WHERE state = 'queued' AND run_at <= now())), 0)::float8
          FROM ferry.jobs GROUP BY queue, state ORDER BY queue, state
        """
    static let fromView = """
        SELECT queue, state, jobs, due, oldest_waiting_seconds FROM ferry.queue_stats ORDER BY queue, state
        """

    static func rows(_ db: TestDatabase, _ sql: String) async throws -> [[String]] {
        // now() is the transaction's start: both in one transaction, so ages compare exactly.
        try await db.query(sql).rows.map { row in
            [try row.decode(String.self, at: 0), try row.decode(String.self, at: 1), "\(try row.decode(Int.self, at: 2))",
             "\(try row.decode(Int.self, at: 3))"]
        }
    }

    @Test("after concurrent churn the counters equal the real counts, before and after compaction, and queue_stats matches counting")
    func countersMatch() async throws {
        let db = try await TestDatabase.make("counters")
        let store = db.store(poolSize: 8)
        defer { store.client.close() }
        // Scheduled, retried, held and due jobs over two queues and several priorities.
        var specs = [JobSpec]()
        for index in 0..<40 {
            let queue = index % 2 == 0 ? "default" : "slow"
            let runAt: Date? = index % 8 == 0 ? Date().addingTimeInterval(3600) : nil
            specs.append(StoreFixtures.fetchSpec(queue: queue, priority: Int64(index % 3), runAt: runAt))
        }
        _ = try await store.enqueue(specs)
        try await ProjectionTests().churn(store, db: db, jobs: 400, workers: 4)
        #expect(try await store.projection.queueCountDifferences().isEmpty)
        let pending = try await db.query(
            """
            SELECT (SELECT count(*) FROM ferry.queue_count_deltas) + (SELECT count(*) FROM ferry.batch_count_deltas)
                   + (SELECT count(*) FROM ferry.throughput_deltas)
            """).rows[0].decode(Int.self, at: 0)
        #expect(pending > 0)
        #expect(try await Self.rows(db, Self.fromView) == Self.rows(db, Self.naive))

        #expect(try await store.compactCounters() == pending)
        #expect(try await db.query("SELECT count(*) FROM ferry.queue_count_deltas").rows[0].decode(Int.self, at: 0) == 0)
        #expect(try await store.projection.queueCountDifferences().isEmpty)
        #expect(try await Self.rows(db, Self.fromView) == Self.rows(db, Self.naive))
        // The oldest wait agrees too (same transaction, same now()).
        let ages = try await db.client(poolSize: 1).withTransaction { connection in
            let view = try connection.query(Self.fromView).rows.map { try $0.decode(Double.self, at: 4) }
            let naive = try connection.query(Self.naive).rows.map { try $0.decode(Double.self, at: 4) }
            return (view, naive)
        }
        #expect(ages.0 == ages.1)
    }

    @Test("verify reports a wrong counter with its queue and state, and rebuild recounts", .tags(.process))
    func wrongCounterCaught() async throws {
        let db = try await TestDatabase.make("countbad")
        let store = db.store()
        defer { store.client.close() }
        _ = try await store.enqueue((0..<5).map { _ in StoreFixtures.fetchSpec() })
        try await db.query("INSERT INTO ferry.queue_count_deltas (queue, state, delta) VALUES ('default', 'queued', 2)")
        let differences = try await store.projection.queueCountDifferences()
        #expect(differences == [QueueCountDifference(queue: "default", state: "queued", counted: 7, actual: 5)])
        let cli = try await FerryProcess.run(["projection", "verify"], databaseURL: db.url)
        #expect(cli.status == 1)
        #expect(cli.stdout.contains("queue counter default/queued: counted 7, projection holds 5"), "\(cli.stdout)")
        _ = try await store.projection.rebuild()
        #expect(try await store.projection.queueCountDifferences().isEmpty)
    }

    @Test("at 60,000 finished jobs the status queries read indexes: newest failures backwards by finish time, queue_stats no jobs at all")
    func statusPlans() async throws {
        let db = try await TestDatabase.make("statusplans")
        // Enqueue, claim and finish 60,000 jobs in three statements (the projection's set-based path).
        try await db.query("""
            INSERT INTO ferry.events (job_id, version, type, data)
            SELECT gen_random_uuid(), 1, 'enqueued',
                   jsonb_build_object('kind', 'fetch', 'queue', 'default', 'priority', 0, 'max_attempts', 3,
                                      'source', 'https://example.com/' || i, 'destination', '/srv/')
              FROM generate_series(1, 60000) i
            """)
        try await db.query("""
            INSERT INTO ferry.events (job_id, version, type, data)
            SELECT job_id, 2, 'claimed', jsonb_build_object('lease', 1, 'worker', 'w') FROM ferry.jobs
            """)
        try await db.query("""
            INSERT INTO ferry.events (job_id, version, type, data)
            SELECT job_id, 3, CASE WHEN row_number() OVER (ORDER BY job_id) % 50 = 0 THEN 'failed' ELSE 'succeeded' END,
                   jsonb_build_object('lease', 1, 'error', 'bad')
              FROM ferry.jobs
            """)
        try await db.query("ANALYZE ferry.jobs")
        func plan(_ sql: String) async throws -> String {
            try await db.query("EXPLAIN (FORMAT JSON) " + sql).rows[0].decode(String.self, at: 0)
        }
        let failed = try await plan("SELECT * FROM ferry.job_status WHERE state = 'failed' ORDER BY finished_at DESC LIMIT 100")
        #expect(failed.contains("\"Index Name\": \"jobs_finished_idx\""), "\(failed)")
        #expect(failed.contains("Backward"), "\(failed)")
        #expect(!failed.contains("\"Node Type\": \"Sort\""), "\(failed)")
        let stats = try await plan("SELECT * FROM ferry.queue_stats")
        #expect(!stats.contains("\"Relation Name\": \"jobs\""), "queue_stats reads counters, not jobs: \(stats)")
        let rows = try await Self.rows(db, Self.fromView)
        #expect(rows == [["default", "failed", "1200", "0"], ["default", "succeeded", "58800", "0"]])
    }

    @Test("workers fold the counters and readers read queue_stats, without any right on the counter tables")
    func rolesUseCounters() async throws {
        let db = try await TestDatabase.make("countroles")
        let store = db.store()
        defer { store.client.close() }
        _ = try await store.enqueue((0..<3).map { _ in StoreFixtures.fetchSpec() })
        let suffix = UInt32.random(in: 0...UInt32.max)
        try await db.query("CREATE ROLE cw_\(suffix) LOGIN IN ROLE ferry_worker")
        try await db.query("CREATE ROLE cr_\(suffix) LOGIN IN ROLE ferry_reader")
        func client(_ role: String) -> PostgresClient {
            PostgresClient(configuration: PostgresConfiguration(
                connectionString: db.url.replacingOccurrences(of: "postgres@", with: "\(role)@"), poolSize: 1))
        }
        let worker = FerryStore(client: client("cw_\(suffix)"), logger: .init(label: "w"))
        let reader = client("cr_\(suffix)")
        defer {
            worker.client.close()
            reader.close()
        }
        #expect(try await worker.compactCounters() == 1)
        let queued = try await reader.withConnection { connection in
            try connection.query("SELECT jobs, due FROM ferry.queue_stats WHERE state = 'queued'").rows[0]
        }
        #expect(try queued.decode(Int.self, at: 0) == 3 && queued.decode(Int.self, at: 1) == 3)
        await #expect(throws: PostgresError.self) {
            try await reader.withConnection { try $0.execute("SELECT * FROM ferry.queue_counts") }
        }
    }
}
