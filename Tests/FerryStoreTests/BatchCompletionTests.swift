import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Postgres
import Testing

/// Batch completion: `ferry.batch_events` and the `ferry_batch` notification, recorded by a trigger on the log.
@Suite("batch completion", .tags(.postgres))
struct BatchCompletionTests {
    static let finishSQL = """
        INSERT INTO ferry.events (job_id, version, type, data)
        SELECT job_id, version + 1, 'succeeded', jsonb_build_object('lease', lease) FROM ferry.jobs WHERE job_id = $1::uuid
        """

    /// Enqueues `count` jobs into `batch` and claims them; the claims come back in random order.
    static func claimed(_ store: FerryStore, batch: String, count: Int, queue: String = "default") async throws -> [ClaimedJob] {
        _ = try await store.enqueue((0..<count).map { _ in StoreFixtures.fetchSpec(batch: batch, queue: queue) })
        let jobs = try await store.claim(worker: "w-\(batch)", queues: [queue], limit: count)
        #expect(jobs.count == count)
        return jobs.shuffled()
    }

    /// A session listening on ferry_batch from now on.
    static func listener(_ db: TestDatabase) async throws -> PostgresClient {
        let client = db.client(poolSize: 1)
        try await client.withConnection { try $0.listen(FerryStore.batchChannel) }
        return client
    }

    /// Every ferry_batch payload received so far. A sentinel sent after everything else committed marks the end:
    /// notifications arrive in commit order, so once it is here, every earlier one is too.
    static func received(_ listener: PostgresClient, _ db: TestDatabase) async throws -> [String] {
        let sentinel = "sentinel-\(UUID().uuidString)"
        try await db.query("SELECT pg_notify($1, $2)", [FerryStore.batchChannel, sentinel])
        return try await listener.withConnection { connection in
            var payloads = [String]()
            let deadline = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < deadline {
                for note in try connection.waitForNotifications(timeout: .milliseconds(500)) {
                    if note.payload == sentinel { return payloads }
                    payloads.append(note.payload)
                }
            }
            throw TestSupportError("the sentinel notification never arrived")
        }
    }

    static func completedAt(_ db: TestDatabase, _ batch: String) async throws -> PostgresTimestamp? {
        try await db.query("SELECT completed_at FROM ferry.batch_status WHERE batch = $1", [batch]).rows[0]
            .decode(PostgresTimestamp?.self, at: 0)
    }

    @Test("jobs of three batches finished concurrently from many connections: one completed event and one notification per batch")
    func concurrentFinishes() async throws {
        let db = try await TestDatabase.make("batchdone")
        let store = db.store(poolSize: 8)
        let listener = try await Self.listener(db)
        defer {
            store.client.close()
            listener.close()
        }
        let batches = ["alpha", "beta", "gamma"]
        var jobs = [ClaimedJob]()
        for batch in batches { jobs += try await Self.claimed(store, batch: batch, count: 40) }
        // Jobs without a batch, finished in the same statements, never make batch events.
        _ = try await store.enqueue((0..<10).map { _ in StoreFixtures.fetchSpec(queue: "loose") })
        jobs += try await store.claim(worker: "w-loose", queues: ["loose"], limit: 10)
        jobs.shuffle()
        // Progress and claims do not complete anything either.
        _ = try await store.record(jobs.prefix(20).map { .progress($0, bytesDone: 10) })
        #expect(try await db.query("SELECT count(*) FROM ferry.batch_events").rows[0].decode(Int.self, at: 0) == 0)

        // 130 jobs in statements of 1 to 5 jobs, 16 at a time over 8 connections.
        var chunks = [[ClaimedJob]]()
        var rest = jobs[...]
        while !rest.isEmpty {
            let size = Int.random(in: 1...5)
            chunks.append(Array(rest.prefix(size)))
            rest = rest.dropFirst(size)
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for chunk in chunks {
                group.addTask {
                    let result = try await store.record(chunk.map { .succeeded($0, bytes: 100) })
                    #expect(result.rejected.isEmpty)
                }
            }
            try await group.waitForAll()
        }

        for batch in batches {
            let events = try await store.reads.batchEvents(of: batch)
            #expect(events.map(\.kind) == [.completed], "\(batch)")
            #expect(events.first?.count("jobs") == 40 && events.first?.count("succeeded") == 40)
            #expect(events.first?.count("bytes") == 4000)
            #expect(try await Self.completedAt(db, batch) == events.first?.recordedAt)
        }
        #expect(try await db.query("SELECT count(*) FROM ferry.batch_events").rows[0].decode(Int.self, at: 0) == 3)
        #expect(try await Self.received(listener, db).sorted() == batches)
    }

    @Test("the completed event counts successes, failures, cancellations and bytes")
    func countsFailures() async throws {
        let db = try await TestDatabase.make("batchcounts")
        let store = db.store()
        let listener = try await Self.listener(db)
        defer {
            store.client.close()
            listener.close()
        }
        let ids = try await store.enqueue((0..<6).map { _ in StoreFixtures.fetchSpec(batch: "mixed") }).map(\.jobID)
        // A queued job cancelled at once: cancellation is a terminal state too.
        #expect(try await store.cancel(.job(ids[0]), requestedBy: "test").first?.action == .cancelled)
        let jobs = try await store.claim(worker: "w", queues: ["default"], limit: 5)
        _ = try await store.record(jobs.prefix(3).map { .succeeded($0, bytes: 250) })
        #expect(try await store.reads.batchEvents(of: "mixed").isEmpty, "two jobs are still running")
        #expect(try await Self.completedAt(db, "mixed") == nil)
        _ = try await store.record(jobs.suffix(2).map { .failed($0, error: "disk full") })

        let events = try await store.reads.batchEvents(of: "mixed")
        #expect(events.map(\.kind) == [.completed])
        let counts = ["jobs", "succeeded", "failed", "cancelled", "bytes"].map { events.first?.count($0) }
        #expect(counts == [6, 3, 2, 1, 750])
        #expect(try await Self.received(listener, db) == ["mixed"])
    }

    /// The tracker reads each state's range of the batch index newest first (issue 35): the one live entry left
    /// behind the dead ones of newer, finished jobs must still keep the batch open.
    @Test("the oldest job still queued or running keeps a batch open behind newer finished jobs")
    func oldestUnfinishedKeepsBatchOpen() async throws {
        let db = try await TestDatabase.make("batcholdest")
        let store = db.store()
        defer { store.client.close() }
        // Ids are UUIDv7 and claims take the oldest first: a and b run, c waits.
        _ = try await store.enqueue((0..<3).map { _ in StoreFixtures.fetchSpec(batch: "order") })
        let first = try await store.claim(worker: "w", queues: ["default"], limit: 2).sorted { $0.jobID.uuidString < $1.jobID.uuidString }
        #expect(first.count == 2)
        // The newer running job finishes: the oldest runs, the newest is queued.
        _ = try await store.record([.succeeded(first[1])])
        #expect(try await store.reads.batchEvents(of: "order").isEmpty)
        // The queued one is claimed and finishes: only the oldest, running, is left, behind two newer dead entries.
        let last = try await store.claim(worker: "w", queues: ["default"], limit: 1)
        #expect(last.count == 1 && last[0].jobID.uuidString > first[1].jobID.uuidString)
        _ = try await store.record([.succeeded(last[0])])
        #expect(try await store.reads.batchEvents(of: "order").isEmpty, "the oldest job is still running")
        #expect(try await Self.completedAt(db, "order") == nil)
        _ = try await store.record([.succeeded(first[0])])
        #expect(try await store.reads.batchEvents(of: "order").map(\.kind) == [.completed])
    }

    @Test("requeued or new jobs reopen a complete batch, and it completes again with a new event")
    func reopenAndCompleteAgain() async throws {
        let db = try await TestDatabase.make("batchreopen")
        let store = db.store()
        let listener = try await Self.listener(db)
        defer {
            store.client.close()
            listener.close()
        }
        let first = try await Self.claimed(store, batch: "redo", count: 3)
        _ = try await store.record([.succeeded(first[0]), .failed(first[1], error: "boom"), .failed(first[2], error: "boom")])
        #expect(try await store.reads.batchEvents(of: "redo").map(\.kind) == [.completed])

        // ferry retry --batch: the failed jobs go back to the queue, in one statement.
        let requeued = try await store.retry(.batch("redo"), requestedBy: "test")
        #expect(requeued.filter { $0.action == .requeued }.count == 2)
        var events = try await store.reads.batchEvents(of: "redo")
        #expect(events.map(\.kind) == [.completed, .reopened])
        #expect(events.last?.count("unfinished") == 2)
        #expect(try await Self.completedAt(db, "redo") == nil)

        let second = try await store.claim(worker: "w", queues: ["default"], limit: 2)
        _ = try await store.record([.succeeded(second[0])])
        #expect(try await store.reads.batchEvents(of: "redo").count == 2, "one job is still running")
        _ = try await store.record([.succeeded(second[1])])
        events = try await store.reads.batchEvents(of: "redo")
        #expect(events.map(\.kind) == [.completed, .reopened, .completed])
        #expect(events.last?.count("succeeded") == 3 && events.last?.count("failed") == 0)

        // A job enqueued later into the finished batch reopens it as well.
        let late = try await Self.claimed(store, batch: "redo", count: 1)
        #expect(try await store.reads.batchEvents(of: "redo").last?.kind == .reopened)
        _ = try await store.record([.succeeded(late[0])])
        events = try await store.reads.batchEvents(of: "redo")
        #expect(events.map(\.kind) == [.completed, .reopened, .completed, .reopened, .completed])
        #expect(events.last?.count("jobs") == 4)
        #expect(try await Self.completedAt(db, "redo") == events.last?.recordedAt)
        #expect(try await Self.received(listener, db) == Array(repeating: "redo", count: 5))
    }

    @Test("fan-out: children enqueued by a running job keep the batch open until they finish too")
    func fanOut() async throws {
        let db = try await TestDatabase.make("batchfan")
        let store = db.store()
        defer { store.client.close() }
        let parent = try await Self.claimed(store, batch: "folder", count: 1)[0]
        // The listing job enqueues one child per file into its own batch, then finishes.
        _ = try await store.enqueue((0..<3).map { _ in StoreFixtures.fetchSpec(batch: "folder", queue: "files") })
        _ = try await store.record([.succeeded(parent)])
        #expect(try await store.reads.batchEvents(of: "folder").isEmpty)
        let children = try await store.claim(worker: "w", queues: ["files"], limit: 3)
        _ = try await store.record(children.map { .succeeded($0) })
        let events = try await store.reads.batchEvents(of: "folder")
        #expect(events.map(\.kind) == [.completed])
        #expect(events.first?.count("jobs") == 4)
    }

    @Test("the last two jobs finished in two concurrent transactions: the second waits for the first and records the completion")
    func lastTwoRace() async throws {
        let db = try await TestDatabase.make("batchrace")
        let store = db.store(poolSize: 2)
        let gate = db.client(poolSize: 1)
        let first = db.client(poolSize: 1)
        let second = db.client(poolSize: 1)
        defer {
            for client in [store.client, gate, first, second] { client.close() }
        }
        let firstPID = try await first.withConnection { $0.backendPID }
        let secondPID = try await second.withConnection { $0.backendPID }
        // Waiting for an advisory lock (the gate, or the batch lock), or done with its statement.
        func blocked(_ pid: Int32) async throws -> Bool {
            try await db.query(
                "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE pid = $1 AND locktype = 'advisory' AND NOT granted)", [pid]
            ).rows[0].decode(Bool.self, at: 0)
        }
        func succeeded(_ job: UUID) async throws -> Bool {
            try await db.query("SELECT state = 'succeeded' FROM ferry.jobs WHERE job_id = $1::uuid", [job]).rows[0].decode(Bool.self, at: 0)
        }
        for round in 0..<5 {
            let batch = "race-\(round)"
            let jobs = try await Self.claimed(store, batch: batch, count: 2)
            // The first transaction finishes its job, then stays open until the gate opens.
            _ = try await gate.withConnection { try $0.query("SELECT pg_advisory_lock(7007)") }
            let firstDone = Task {
                try await first.withConnection { connection in
                    try connection.transaction { tx in
                        try tx.query(Self.finishSQL, [jobs[0].jobID])
                        try tx.query("SELECT pg_advisory_lock(7007)")
                        try tx.query("SELECT pg_advisory_unlock(7007)")
                    }
                }
            }
            try await eventually("the first transaction to hold at the gate") { try await blocked(firstPID) }
            // The second finishes the other job. Without per-batch serialization it commits at once, seeing the
            // first job still running, and the first (which saw the second running) commits later: no event.
            let secondDone = Task { try await second.withConnection { try $0.query(Self.finishSQL, [jobs[1].jobID]) } }
            try await eventually("the second statement to commit or wait") {
                let done = try await succeeded(jobs[1].jobID)
                let waiting = try await blocked(secondPID)
                return done || waiting
            }
            _ = try await gate.withConnection { try $0.query("SELECT pg_advisory_unlock(7007)") }
            _ = try await firstDone.value
            _ = try await secondDone.value
            let events = try await store.reads.batchEvents(of: batch)
            #expect(events.map(\.kind) == [.completed], "round \(round)")
            #expect(events.first?.count("succeeded") == 2)
        }
    }

    @Test("many batches racing to their last two jobs: every one completes exactly once")
    func manyLastTwoRaces() async throws {
        let db = try await TestDatabase.make("batchraces")
        let store = db.store(poolSize: 8)
        defer { store.client.close() }
        var pairs = [[ClaimedJob]]()
        for index in 0..<30 { pairs.append(try await Self.claimed(store, batch: "pair-\(index)", count: 2)) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for pair in pairs {
                for job in pair {
                    group.addTask { _ = try await store.record([.succeeded(job)]) }
                }
            }
            try await group.waitForAll()
        }
        let counts = try await db.query("""
            SELECT count(*) FILTER (WHERE n = 1), count(*) FROM (
                SELECT j.batch, (SELECT count(*) FROM ferry.batch_events e WHERE e.batch = j.batch) AS n
                  FROM ferry.jobs j GROUP BY j.batch) x
            """).rows[0]
        #expect(try counts.decode(Int.self, at: 0) == 30 && counts.decode(Int.self, at: 1) == 30)
    }

    @Test("batch events are append-only for the owner and written only by the trigger for application roles")
    func appendOnly() async throws {
        let db = try await TestDatabase.make("batchappend")
        let store = db.store()
        defer { store.client.close() }
        let job = try await Self.claimed(store, batch: "b", count: 1)[0]
        _ = try await store.record([.succeeded(job)])
        for statement in ["UPDATE ferry.batch_events SET data = '{}'", "DELETE FROM ferry.batch_events", "TRUNCATE ferry.batch_events"] {
            await #expect {
                try await db.query(statement)
            } throws: { error in
                (error as? PostgresError)?.sqlState == "FY010"
            }
        }
        let role = "bw_\(UInt32.random(in: 0...UInt32.max))"
        try await db.query("CREATE ROLE \(role) LOGIN IN ROLE ferry_worker")
        let worker = PostgresClient(
            configuration: PostgresConfiguration(connectionString: db.url.replacingOccurrences(of: "postgres@", with: "\(role)@"), poolSize: 1))
        defer { worker.close() }
        await #expect {
            try await worker.withConnection { try $0.query("INSERT INTO ferry.batch_events (batch, type) VALUES ('b', 'reopened')") }
        } throws: { error in
            (error as? PostgresError)?.sqlState == .insufficientPrivilege
        }
        let visible = try await worker.withConnection {
            try $0.query("SELECT count(*) FROM ferry.batch_events").rows[0].decode(Int.self, at: 0)
        }
        #expect(visible == 1)
    }
}
