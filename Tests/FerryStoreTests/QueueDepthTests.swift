import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Postgres
import Testing

/// `ferry.queue_depth`, what every worker reads for its queue gauges: exact, zeros for empty queues, and cheap at
/// depth (its plan read from the server with auto_explain, as in ClaimPlanTests).
@Suite("queue depth for metrics", .tags(.postgres))
struct QueueDepthTests {
    /// The same figures by counting every job.
    static let naive = """
        SELECT q.queue,
               count(j.*) FILTER (WHERE j.state = 'queued')::bigint,
               count(j.*) FILTER (WHERE j.state = 'running')::bigint,
               coalesce(extract(epoch FROM now() - min(j.run_at) FILTER (WHERE j.state = 'queued' AND j.run_at <= now())), 0)::float8
          FROM (SELECT DISTINCT queue FROM ferry.jobs WHERE state IN ('queued', 'running')
                UNION SELECT unnest($1::text[])) q
          LEFT JOIN ferry.jobs j ON j.queue = q.queue AND j.state IN ('queued', 'running')
         GROUP BY q.queue ORDER BY q.queue
        """
    static let depth = "SELECT queue, queued, running, oldest_waiting_seconds FROM ferry.queue_depth($1::text[]) ORDER BY queue"

    /// Both in one transaction, so now() is the same and the waits compare exactly.
    static func both(_ db: TestDatabase, _ queues: [String]) async throws -> (depth: [String], naive: [String]) {
        let client = db.client(poolSize: 1)
        defer { client.close() }
        return try await client.withTransaction { connection in
            func rows(_ sql: String) throws -> [String] {
                try connection.query(sql, [PostgresArray(queues)]).rows.map { row in
                    let queue = try row.decode(String.self, at: 0)
                    let queued = try row.decode(Int.self, at: 1)
                    let running = try row.decode(Int.self, at: 2)
                    let waited = try row.decode(Double.self, at: 3)
                    return "\(queue) \(queued) \(running) \(waited)"
                }
            }
            return (try rows(Self.depth), try rows(Self.naive))
        }
    }

    @Test("after churn it equals counting: queued and running per queue, the oldest due wait, zeros for named empty queues")
    func exact() async throws {
        let db = try await TestDatabase.make("depth")
        let store = db.store(poolSize: 8)
        defer { store.client.close() }
        // Scheduled and due jobs over two queues and several priorities, worked by four concurrent workers.
        var specs = [JobSpec]()
        for index in 0..<30 {
            let queue = index % 2 == 0 ? "default" : "slow"
            let runAt: Date? = index % 5 == 0 ? Date().addingTimeInterval(3600) : nil
            specs.append(StoreFixtures.fetchSpec(queue: queue, priority: Int64(index % 3), runAt: runAt))
        }
        _ = try await store.enqueue(specs)
        try await ProjectionTests().churn(store, db: db, jobs: 300, workers: 4)
        // Some waiting and some running, too.
        _ = try await store.enqueue((0..<8).map { _ in StoreFixtures.fetchSpec(queue: "slow", runAt: Date().addingTimeInterval(-30)) })
        let claimed = try await store.claim(worker: "w", queues: ["slow"], limit: 3)
        #expect(claimed.count == 3)

        let (depth, naive) = try await Self.both(db, ["default", "slow", "idle"])
        #expect(depth == naive)
        #expect(depth.contains("idle 0 0 0.0"), "a named queue without jobs reads zeros: \(depth)")
        #expect(depth.contains { $0.hasPrefix("slow ") && $0.contains(" 3 ") }, "\(depth)")
        // Finished jobs exist but are not depth.
        #expect(try await db.query("SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'").rows[0].decode(Int.self, at: 0) > 0)

        // Drained: the queues still answer, with zeros, and the wait is 0.
        try await db.query("""
            INSERT INTO ferry.events (job_id, version, type, data)
            SELECT job_id, version + 1, 'cancelled', jsonb_build_object('reason', 'drain', 'lease', lease)
              FROM ferry.jobs WHERE state IN ('queued', 'running')
            """)
        let drained = try await Self.both(db, ["default", "slow"])
        #expect(drained.depth == ["default 0 0 0.0", "slow 0 0 0.0"])
        #expect(drained.depth == drained.naive)
        // Unnamed queues drop out once empty (the worker keeps exporting those it has seen, at 0).
        #expect(try await Self.both(db, []).depth.isEmpty)
    }

    @Test("worker and reader roles may read it")
    func roles() async throws {
        let db = try await TestDatabase.make("depthroles")
        let store = db.store()
        defer { store.client.close() }
        _ = try await store.enqueue((0..<3).map { _ in StoreFixtures.fetchSpec() })
        let suffix = UInt32.random(in: 0...UInt32.max)
        for (role, group) in [("dw_\(suffix)", "ferry_worker"), ("dr_\(suffix)", "ferry_reader")] {
            try await db.query("CREATE ROLE \(role) LOGIN IN ROLE \(group)")
            let client = PostgresClient(configuration: PostgresConfiguration(
                connectionString: db.url.replacingOccurrences(of: "postgres@", with: "\(role)@"), poolSize: 1))
            defer { client.close() }
            let rows = try await FerryStore(client: client, logger: .init(label: "t")).queueDepth(including: ["default"])
            #expect(rows.map(\.queue) == ["default"])
            #expect(rows.first?.queued == 3)
        }
    }

    @Test("at 100,000 queued jobs (a fifth scheduled for later) it reads a few index entries per priority level, never the backlog")
    func planAtDepth() async throws {
        let db = try await TestDatabase.make("depthplan")
        try await db.query("""
            INSERT INTO ferry.accounts (name, provider, max_concurrent, status)
            VALUES ('a1', 'dropbox', 4, 'active'), ('a2', 'dropbox', 4, 'needs_reauth')
            """)
        // 100,000 queued over 3 queues, 3 accounts (none, a1, a2) and 4 priority levels, every fifth job
        // scheduled for tomorrow; 60 running; 50,000 finished.
        try await db.query("""
            INSERT INTO ferry.jobs (job_id, version, kind, queue, batch, priority, state, attempt, max_attempts, lease,
                                    worker, account, source, destination, spec, run_at, cancel_requested, bytes_done,
                                    enqueued_at, updated_at)
            SELECT gen_random_uuid(), 1, 'fetch', (ARRAY['default', 'video', 'photos'])[1 + g % 3], 'depth',
                   (ARRAY[0, 5, 10, 20])[1 + g % 4]::smallint,
                   CASE WHEN g <= 100000 THEN 'queued' WHEN g <= 100060 THEN 'running' ELSE 'succeeded' END,
                   0, 5, 0, CASE WHEN g > 100000 AND g <= 100060 THEN 'someone' END,
                   (ARRAY[NULL, 'a1', 'a2'])[1 + g % 7 % 3], 'https://example.com/' || g, '/srv/in/', '{}',
                   CASE WHEN g % 5 = 0 THEN now() + interval '1 day' ELSE now() - interval '1 hour' - g * interval '1 ms' END,
                   false, 0, now() - interval '2 days', now()
              FROM generate_series(1, 150060) AS g
            """)
        try await db.query("SELECT ferry.recount_queues()")
        try await db.query("ANALYZE ferry.jobs")

        let client = db.client(poolSize: 1)
        defer { client.close() }
        func rowsOfJobsRead(_ sql: String) async throws -> (rows: Int, seqScans: Int) {
            let (_, plans) = try await client.withConnection { connection in
                try connection.collectingPlans { try connection.query(sql).rows.count }
            }
            var rows = 0
            var seqScans = 0
            for node in plans.compactMap(PlanNode.parseAutoExplain).flatMap(\.allNodes) where node.relation == "jobs" {
                rows += node.rowsRead
                if node.type == "Seq Scan" { seqScans += 1 }
            }
            return (rows, seqScans)
        }
        let depth = try await rowsOfJobsRead("SELECT * FROM ferry.queue_depth('{default,video,photos}')")
        #expect(depth.seqScans == 0)
        // Per queue: one probe per account and per (account, priority level) and one past the last: about 3 × 20.
        #expect(depth.rows > 0)
        #expect(depth.rows < 100, "queue_depth read \(depth.rows) rows of ferry.jobs")
        // What workers read before: queue_stats' `due` visits every scheduled job.
        let stats = try await rowsOfJobsRead("SELECT * FROM ferry.queue_stats")
        #expect(stats.rows >= 20_000, "queue_stats read \(stats.rows) rows of ferry.jobs")

        let (exact, naive) = try await Self.both(db, [])
        #expect(exact == naive)
        #expect(exact.count == 3)
    }
}
