import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Postgres
import Testing

@Suite("enqueue, commands and status views", .tags(.postgres))
struct EnqueueTests {
    @Test("a batch enqueues whole or not at all")
    func allOrNothing() async throws {
        let db = try await TestDatabase.make("atomic")
        let store = db.store()
        defer { store.client.close() }
        try await db.query("INSERT INTO ferry.accounts (name, provider) VALUES ('known', 'dropbox')")
        var specs = (0..<500).map { _ in StoreFixtures.fetchSpec(batch: "all", account: "known") }
        specs.append(StoreFixtures.fetchSpec(batch: "all", account: "unknown"))
        await #expect {
            try await store.enqueue(specs)
        } throws: { error in
            (error as? FerryStoreError)?.code == .unknownAccount && "\(error)".contains("unknown")
        }
        let count = try await db.query("SELECT (SELECT count(*) FROM ferry.events) + (SELECT count(*) FROM ferry.jobs)")
        #expect(try count.rows[0].decode(Int.self, at: 0) == 0)
        // A duplicate job id inside the COPY also aborts everything: the events' key (job_id, version) refuses the
        // second 'enqueued', which the store reports as another event appended to the job first.
        var duplicate = (0..<3).map { _ in StoreFixtures.fetchSpec() }
        duplicate.append(duplicate[0])
        await #expect {
            try await store.enqueue(duplicate)
        } throws: { error in
            (error as? FerryStoreError)?.code == .versionConflict
        }
        #expect(try await db.query("SELECT count(*) FROM ferry.jobs").rows[0].decode(Int.self, at: 0) == 0)
        specs.removeLast()
        #expect(try await store.enqueue(specs).count == 500)
    }

    @Test("idempotency keys: repeats return the existing job, also under concurrency")
    func idempotency() async throws {
        let db = try await TestDatabase.make("idem")
        let store = db.store(poolSize: 8)
        defer { store.client.close() }
        let first = try await store.enqueue([StoreFixtures.fetchSpec(key: "photo-1")])[0]
        #expect(first.created)
        let again = try await store.enqueue([StoreFixtures.fetchSpec(key: "photo-1"), StoreFixtures.fetchSpec(key: "photo-2"), StoreFixtures.fetchSpec(key: "photo-2")])
        #expect(again[0].jobID == first.jobID && !again[0].created)
        #expect(again[1].created && again[2].jobID == again[1].jobID && !again[2].created)
        // Twelve producers race on one new key: one job.
        let ids = try await withThrowingTaskGroup(of: UUID.self) { group in
            for _ in 0..<12 {
                group.addTask { try await store.enqueue([StoreFixtures.fetchSpec(key: "race")])[0].jobID }
            }
            var ids = Set<UUID>()
            for try await id in group { ids.insert(id) }
            return ids
        }
        #expect(ids.count == 1)
        let jobs = try await db.query("SELECT count(*) FROM ferry.jobs WHERE idempotency_key = 'race'")
        #expect(try jobs.rows[0].decode(Int.self, at: 0) == 1)
    }

    @Test("a key given again with different arguments is refused, naming the key and the job; nothing is written")
    func keyReusedWithOtherArguments() async throws {
        let db = try await TestDatabase.make("idem_args")
        let store = db.store(poolSize: 2)
        defer { store.client.close() }
        let first = try await store.enqueue([StoreFixtures.fetchSpec(key: "report", priority: 1)])[0]
        // The same request again, scheduled differently: still the same job.
        let same = try await store.enqueue([StoreFixtures.fetchSpec(key: "report", priority: 1, runAt: Date().addingTimeInterval(60))])[0]
        #expect(same.jobID == first.jobID && !same.created)

        var moved = StoreFixtures.fetchSpec(key: "report", priority: 1)
        moved.destination = "/srv/elsewhere/"
        for batch in [[moved], [StoreFixtures.fetchSpec(key: "fresh"), StoreFixtures.fetchSpec(key: "report", priority: 9)]] {
            await #expect {
                try await store.enqueue(batch, lines: batch.indices.map { $0 + 1 })
            } throws: { error in
                guard let error = error as? FerryStoreError, error.code == .keyReused else { return false }
                return error.description.contains("'report'") && error.description.contains(first.jobID.uuidString.lowercased())
            }
        }
        // Two different requests under one new key in one batch are refused too.
        var other = StoreFixtures.fetchSpec(key: "twice")
        other.priority = 5
        await #expect(throws: FerryStoreError.self) { try await store.enqueue([StoreFixtures.fetchSpec(key: "twice"), other]) }
        let jobs = try await db.query("SELECT count(*) FROM ferry.jobs").rows[0].decode(Int.self, at: 0)
        #expect(jobs == 1, "all or nothing")
    }

    @Test("claims respect queues, due time and priority")
    func claimOrder() async throws {
        let db = try await TestDatabase.make("order")
        let store = db.store()
        defer { store.client.close() }
        let low = StoreFixtures.fetchSpec(priority: -5)
        let high = StoreFixtures.fetchSpec(priority: 50)
        let later = StoreFixtures.fetchSpec(priority: 100, runAt: Date().addingTimeInterval(3600))
        let other = StoreFixtures.fetchSpec(queue: "other", priority: 100)
        _ = try await store.enqueue([low, high, later, other])
        let claimed = try await store.claim(worker: "w", queues: ["default"], limit: 10)
        #expect(claimed.map(\.jobID) == [high.jobID, low.jobID])
        #expect(claimed.allSatisfy { $0.attempt == 1 && $0.lease == 1 })
    }

    @Test("cancel and retry: queued cancels at once, running is asked, failed goes back to the queue")
    func cancelAndRetry() async throws {
        let db = try await TestDatabase.make("cancel")
        let store = db.store()
        defer { store.client.close() }
        let ids = try await store.enqueue((0..<3).map { _ in StoreFixtures.fetchSpec(batch: "c") }).map(\.jobID)
        let running = try await store.claim(worker: "w", queues: ["default"], limit: 2)
        _ = try await store.record([.failed(running[1], error: "disk full")])
        let outcomes = try await store.cancel(.batch("c"), requestedBy: "me")
        let byJob = Dictionary(uniqueKeysWithValues: outcomes.map { ($0.jobID, $0.action) })
        let queued = try #require(ids.first { id in !running.contains { $0.jobID == id } })
        #expect(byJob[queued] == .cancelled)
        #expect(byJob[running[0].jobID] == .cancelRequested)
        #expect(byJob[running[1].jobID] == nil, "a batch command lists only the jobs it changed")
        #expect(try await store.cancel(.job(running[1].jobID), requestedBy: "me").first?.action == .unchanged)
        let status = try await store.reads.jobStatus(.job(running[0].jobID))[0]
        #expect(status.status == "cancelling")
        // The worker notices and records cancelled with its lease.
        _ = try await store.record([.cancelled(running[0])])
        #expect(try await store.reads.jobStatus(.job(running[0].jobID))[0].state == "cancelled")
        let retried = try await store.retry(.job(running[1].jobID), requestedBy: "me")
        #expect(retried.first?.action == .requeued)
        let requeued = try await store.reads.jobStatus(.job(running[1].jobID))[0]
        #expect(requeued.state == "queued" && requeued.attempt == 0 && requeued.lastError == "disk full")
        await #expect {
            try await store.cancel(.job(UUID()), requestedBy: "me")
        } throws: { error in
            (error as? FerryStoreError)?.code == .notFound
        }
    }

    @Test("status views: per-job display state, batch counts and percent, queue ages")
    func statusViews() async throws {
        let db = try await TestDatabase.make("views")
        let store = db.store()
        defer { store.client.close() }
        _ = try await store.enqueue((0..<4).map { _ in StoreFixtures.fetchSpec(batch: "v") })
        let claimed = try await store.claim(worker: "w", queues: ["default"], limit: 3)
        _ = try await store.record([.succeeded(claimed[0], bytes: 1000), .progress(claimed[1], bytesDone: 250)])
        _ = try await store.record([.retry(claimed[2], error: "timeout", at: Date().addingTimeInterval(600))])
        let batch = try #require(try await store.reads.batchStatus("v").first)
        #expect(batch.jobs == 4 && batch.succeeded == 1 && batch.running == 1 && batch.queued == 2)
        #expect(batch.bytesDone == 1250 && batch.bytesTotal == 4000)
        #expect(batch.percent == "31.3")
        #expect(!batch.done && batch.finishedAt == nil)
        let rows = try await store.reads.jobStatus(.batch("v"))
        let retrying = try #require(rows.first { $0.jobID == claimed[2].jobID })
        #expect(retrying.status == "retrying" && retrying.lastError == "timeout" && retrying.attempt == 1)
        let progressing = try #require(rows.first { $0.jobID == claimed[1].jobID })
        #expect(progressing.percent == "25.0" && progressing.worker == "w")
        let stats = try await store.reads.queueStats("default")
        let queued = try #require(stats.first { $0.state == "queued" })
        #expect(queued.jobs == 2 && queued.due == 1)
        #expect(queued.oldestWaitingSeconds >= 0)
    }
}
