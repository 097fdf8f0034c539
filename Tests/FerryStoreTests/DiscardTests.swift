import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Postgres
import Testing

/// Migration 0032: `discarded` ends a failed job for good, counted apart from failed, and only a failed one.
@Suite("discard", .tags(.postgres))
struct DiscardTests {
    /// A batch of four jobs on a queue of their own: two failed, one succeeded, one still queued.
    static func mixedBatch(_ store: FerryStore, _ name: String) async throws -> (failed: [UUID], succeeded: UUID, queued: UUID) {
        let queue = "q-\(name)"
        let ids = try await store.enqueue((0..<4).map { _ in StoreFixtures.fetchSpec(batch: name, queue: queue) }).map(\.jobID)
        let claimed = try await store.claim(worker: "w", queues: [queue], limit: 3)
        #expect(claimed.count == 3)
        _ = try await store.record([
            .failed(claimed[0], error: "HTTP 404 for https://example.com/a.jpg"), .failed(claimed[1], error: "HTTP 404"),
            .succeeded(claimed[2], bytes: 1000),
        ])
        let queued = Set(ids).subtracting(claimed.map(\.jobID)).first!
        return ([claimed[0].jobID, claimed[1].jobID], claimed[2].jobID, queued)
    }

    @Test("discarding a batch's failed jobs: state, counts, error and history kept, nothing else touched, counters exact")
    func discardBatch() async throws {
        let db = try await TestDatabase.make("discard")
        let store = db.store()
        defer { store.client.close() }
        let jobs = try await Self.mixedBatch(store, "d1")
        let outcomes = try await store.discard(.batch("d1"), requestedBy: "tester")
        let changed = outcomes.filter { $0.action == .discarded }
        #expect(Set(changed.map(\.jobID)) == Set(jobs.failed))
        #expect(changed.allSatisfy { $0.state == "discarded" })

        let row = try #require(try await store.reads.batchStatus("d1").first)
        #expect(row.failed == 0 && row.discarded == 2 && row.succeeded == 1 && row.queued == 1 && row.jobs == 4)
        #expect(!row.done)
        let job = try #require(try await store.reads.jobStatus(.job(jobs.failed[0])).first)
        #expect(job.state == "discarded" && job.status == "discarded")
        #expect(job.lastError == "HTTP 404 for https://example.com/a.jpg", "the failure stays readable")
        #expect(job.finishedAt != nil)
        let last = try #require(try await store.reads.events(of: jobs.failed[0]).last)
        #expect(last.type == "discarded" && last.data.contains("tester"))

        // The failures to act on no longer hold them.
        #expect(try await store.reads.failureSample().allSatisfy { !jobs.failed.contains($0.jobID) })
        #expect(try await store.projection.batchCountDifferences().isEmpty)
        #expect(try await store.projection.queueCountDifferences().isEmpty)
        #expect(try await store.projection.verify().isClean)

        // Again: nothing left to discard.
        #expect(try await store.discard(.batch("d1"), requestedBy: "tester").allSatisfy { $0.action == .unchanged })
    }

    @Test("only a failed job is discarded: queued, running, succeeded and cancelled are left alone; FY002 when appended")
    func onlyFailed() async throws {
        let db = try await TestDatabase.make("discardonly")
        let store = db.store()
        defer { store.client.close() }
        let jobs = try await Self.mixedBatch(store, "d2")
        for id in [jobs.succeeded, jobs.queued] {
            let outcome = try #require(try await store.discard(.job(id), requestedBy: "t").first)
            #expect(outcome.action == .unchanged)
        }
        #expect(try await store.reads.jobStatus(.job(jobs.queued)).first?.state == "queued")
        // Appended directly, the fold refuses it with FY002 and names the state.
        await #expect {
            try await store.append(jobID: jobs.succeeded, expectedVersion: 3, type: .discarded)
        } throws: { error in
            (error as? FerryStoreError)?.code == .invalidTransition && "\(error)".contains("only failed jobs can be discarded")
        }
        // Discarding twice: the second finds the job discarded and leaves it.
        #expect(try await store.discard(.job(jobs.failed[0]), requestedBy: "t").first?.action == .discarded)
        let again = try #require(try await store.discard(.job(jobs.failed[0]), requestedBy: "t").first)
        #expect(again.action == .unchanged && again.state == "discarded")
    }

    @Test("a batch retry leaves discarded jobs alone; retrying the job by id brings it back; the batch reopens")
    func retryDiscarded() async throws {
        let db = try await TestDatabase.make("discardretry")
        let store = db.store()
        defer { store.client.close() }
        let jobs = try await Self.mixedBatch(store, "d3")
        _ = try await store.discard(.job(jobs.failed[0]), requestedBy: "t")
        let batchRetry = try await store.retry(.batch("d3"), requestedBy: "t")
        #expect(batchRetry.filter { $0.action == .requeued }.map(\.jobID) == [jobs.failed[1]])
        #expect(try await store.reads.jobStatus(.job(jobs.failed[0])).first?.state == "discarded")

        let named = try #require(try await store.retry(.job(jobs.failed[0]), requestedBy: "t").first)
        #expect(named.action == .requeued && named.state == "queued")
        let row = try #require(try await store.reads.batchStatus("d3").first)
        #expect(row.discarded == 0 && row.queued == 3)
        #expect(try await store.projection.batchCountDifferences().isEmpty)
        #expect(try await store.projection.verify().isClean)
    }

    @Test("a batch of failed jobs stays complete when they are discarded, at 100 %")
    func discardedIsFinished() async throws {
        let db = try await TestDatabase.make("discardfinished")
        let store = db.store()
        defer { store.client.close() }
        let queue = "q-done"
        _ = try await store.enqueue((0..<2).map { _ in StoreFixtures.fetchSpec(batch: "d4", queue: queue) })
        let claimed = try await store.claim(worker: "w", queues: [queue], limit: 2)
        _ = try await store.record(claimed.map { .failed($0, error: "bad") })
        let completed = try await store.reads.batchEvents(of: "d4")
        #expect(completed.last?.kind == .completed)
        _ = try await store.discard(.batch("d4"), requestedBy: "t")
        let row = try #require(try await store.reads.batchStatus("d4").first)
        #expect(row.done && row.percent == "100.0" && row.discarded == 2 && row.failed == 0)
        #expect(try await store.reads.batchEvents(of: "d4").count == completed.count, "no reopen, no second completion")
    }

    @Test("a filter (batch, state, text) acts on every match and lists only what changed; a selection lists each job")
    func matchingAndSelection() async throws {
        let db = try await TestDatabase.make("bulkmatch")
        let store = db.store()
        defer { store.client.close() }
        let jobs = try await Self.mixedBatch(store, "d5")
        let other = try await Self.mixedBatch(store, "d6")
        // The text filter: only the failed job whose URL carries "a.jpg"-like text; the pattern's % and _ are literal.
        let sources = try await db.query(
            "SELECT job_id, source FROM ferry.jobs WHERE job_id = ANY ($1::uuid[])", [PostgresArray(jobs.failed)]
        ).rows.map { (try $0.decode(UUID.self, at: 0), try $0.decode(String.self, at: 1)) }
        let (first, firstSource) = sources[0]
        let needle = String(firstSource.split(separator: "/").last!.prefix(12))
        #expect(try await store.discard(.matching(batch: "d5", state: nil, search: "%"), requestedBy: "t").isEmpty)
        let narrowed = try await store.discard(.matching(batch: "d5", state: "failed", search: needle.uppercased()), requestedBy: "t")
        #expect(narrowed.map(\.jobID) == [first] && narrowed.allSatisfy { $0.action == .discarded })
        // Every job of the batch in one state: the other failed job is retried, nothing of batch d6 moves.
        let retried = try await store.retry(.matching(batch: "d5", state: "failed", search: nil), requestedBy: "t")
        #expect(retried.map(\.jobID) == [jobs.failed.first { $0 != first }!])
        let cancelled = try await store.cancel(.matching(batch: "d5", state: nil, search: nil), requestedBy: "t")
        #expect(Set(cancelled.map(\.jobID)) == Set([jobs.queued] + jobs.failed.filter { $0 != first }))
        #expect(try await store.reads.jobStatus(.job(other.queued)).first?.state == "queued")
        // A selection: each named job, the ones left alone with their state.
        let selection = try await store.retry(.jobs([other.failed[0], other.succeeded]), requestedBy: "t")
        #expect(Dictionary(uniqueKeysWithValues: selection.map { ($0.jobID, $0.action) })
                == [other.failed[0]: .requeued, other.succeeded: .unchanged])
        await #expect(throws: FerryStoreError.self) {
            try await store.retry(.matching(batch: "no-such-batch", state: nil, search: nil), requestedBy: "t")
        }
        #expect(try await store.projection.verify().isClean)
    }
}
