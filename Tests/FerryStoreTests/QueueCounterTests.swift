import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Postgres
import Testing

@Suite("queue counters")
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
        #expect(try await store.queueCountDifferences().isEmpty)
        let pending = try await db.query("SELECT count(*) FROM ferry.queue_count_deltas").rows[0].decode(Int.self, at: 0)
        #expect(pending > 0)
        #expect(try await Self.rows(db, Self.fromView) == Self.rows(db, Self.naive))

        #expect(try await store.compactQueueCounts() == pending)
        #expect(try await db.query("SELECT count(*) FROM ferry.queue_count_deltas").rows[0].decode(Int.self, at: 0) == 0)
        #expect(try await store.queueCountDifferences().isEmpty)
        #expect(try await Self.rows(db, Self.fromView) == Self.rows(db, Self.naive))
        // The oldest wait agrees too (same transaction, same now()).
        let ages = try await db.client(poolSize: 1).withTransaction { connection in
            let view = try connection.query(Self.fromView).rows.map { try $0.decode(Double.self, at: 4) }
            let naive = try connection.query(Self.naive).rows.map { try $0.decode(Double.self, at: 4) }
            return (view, naive)
        }
        #expect(ages.0 == ages.1)
    }

    @Test("verify reports a wrong counter with its queue and state, and rebuild recounts")
    func wrongCounterCaught() async throws {
        let db = try await TestDatabase.make("countbad")
        let store = db.store()
        defer { store.client.close() }
        _ = try await store.enqueue((0..<5).map { _ in StoreFixtures.fetchSpec() })
        try await db.query("INSERT INTO ferry.queue_count_deltas (queue, state, delta) VALUES ('default', 'queued', 2)")
        let differences = try await store.queueCountDifferences()
        #expect(differences == [QueueCountDifference(queue: "default", state: "queued", counted: 7, actual: 5)])
        let cli = try await FerryProcess.run(["projection", "verify"], databaseURL: db.url)
        #expect(cli.status == 1)
        #expect(cli.stdout.contains("queue counter default/queued: counted 7, projection holds 5"), "\(cli.stdout)")
        _ = try await store.rebuildProjection()
        #expect(try await store.queueCountDifferences().isEmpty)
    }
}
