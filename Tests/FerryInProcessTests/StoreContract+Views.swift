import FerryCore
import FerryStore
import FerryTesting
import Foundation
import Testing

/// Rules for what the worker reads for its metrics and views, and the account it settles for a job enqueued from
/// SQL: the `WorkerStore` methods the claim-and-outcome rules do not reach.
extension StoreContract {
    static let views: [StoreContract] = [
        StoreContract(name: "queue depth: queued and running per queue with unfinished jobs, and each queue asked about", check: queueDepth),
        StoreContract(name: "compacting counters changes no depth; a second compaction right after folds nothing", check: compaction),
        StoreContract(name: "live progress: a worker's publish replaces its own entries and leaves another worker's", check: liveProgress),
        StoreContract(
            name: "an account is settled by name when it is the provider's, or as the provider's only account; else unknownAccount",
            check: settleAccount),
        StoreContract(name: "announced capacity wakes the workers to claim again", check: announceCapacity),
        StoreContract(name: "a job enqueued without a trace has no trace parent in its facts", check: traceFacts),
    ]

    static func queueDepth(_ fixture: any StoreFixture) async throws {
        try await fixture.enqueue([JobSpec.test(), JobSpec.test(), JobSpec.test(), JobSpec.test(queue: "other")])
        _ = try await fixture.store.claim(worker: "w1", queues: ["default"], limit: 1)
        let rows = Dictionary(uniqueKeysWithValues: try await fixture.store.queueDepth(including: ["idle"]).map { ($0.queue, $0) })
        #expect(Set(rows.keys) == ["default", "other", "idle"], "\(rows)")
        #expect(rows["default"]?.queued == 2 && rows["default"]?.running == 1, "\(rows)")
        #expect(rows["other"]?.queued == 1 && rows["other"]?.running == 0, "\(rows)")
        #expect(rows["idle"] == QueueDepthRow(queue: "idle", queued: 0, running: 0, oldestWaitingSeconds: 0))
        #expect(rows.values.allSatisfy { $0.oldestWaitingSeconds >= 0 }, "\(rows)")
    }

    static func compaction(_ fixture: any StoreFixture) async throws {
        try await fixture.enqueue([JobSpec.test(), JobSpec.test(queue: "other")])
        _ = try await fixture.store.claim(worker: "w1", queues: ["default"], limit: 1)
        let before = Set(try await fixture.store.queueDepth(including: []).map { "\($0.queue) \($0.queued) \($0.running)" })
        #expect(try await fixture.store.compactCounters() >= 0)
        #expect(try await fixture.store.compactCounters() == 0, "nothing new to fold")
        let after = Set(try await fixture.store.queueDepth(including: []).map { "\($0.queue) \($0.queued) \($0.running)" })
        #expect(after == before)
    }

    static func liveProgress(_ fixture: any StoreFixture) async throws {
        try await fixture.enqueue([JobSpec.test(), JobSpec.test(), JobSpec.test()])
        // Entries belong to registered workers (a worker's row going takes its entries with it).
        try await fixture.store.register(registration("w1"))
        try await fixture.store.register(registration("w2"))
        let mine = try await fixture.store.claim(worker: "w1", queues: ["default"], limit: 2)
        let theirs = try await fixture.store.claim(worker: "w2", queues: ["default"], limit: 1)
        try #require(mine.count == 2 && theirs.count == 1)
        try await fixture.store.publishLiveProgress(worker: "w2", jobs: [(theirs[0].jobID, nil, 7)])
        try await fixture.store.publishLiveProgress(worker: "w1", jobs: mine.map { ($0.jobID, nil, 100) })
        #expect(try await fixture.liveBytes(of: mine[0].jobID) == 100)
        #expect(try await fixture.liveBytes(of: mine[1].jobID) == 100)
        // The next publish names one job: the other's entry goes (its transfer ended), the named one moves on.
        try await fixture.store.publishLiveProgress(worker: "w1", jobs: [(mine[1].jobID, nil, 250)])
        #expect(try await fixture.liveBytes(of: mine[0].jobID) == nil)
        #expect(try await fixture.liveBytes(of: mine[1].jobID) == 250)
        #expect(try await fixture.liveBytes(of: theirs[0].jobID) == 7, "another worker's entry is left alone")
        try await fixture.store.publishLiveProgress(worker: "w1", jobs: [])
        #expect(try await fixture.liveBytes(of: mine[1].jobID) == nil)
    }

    static func settleAccount(_ fixture: any StoreFixture) async throws {
        let store = fixture.store
        func refused(_ name: String?, _ provider: String) async -> Bool {
            do {
                _ = try await store.settleAccount(named: name, provider: provider)
                return false
            } catch let error as FerryStoreError {
                return error.code == .unknownAccount
            } catch {
                return false
            }
        }
        #expect(await refused(nil, "dropbox"), "no account yet")
        try await fixture.addAccount("photos", maxConcurrent: 2)
        #expect(try await store.settleAccount(named: nil, provider: "dropbox") == "photos", "the only one")
        #expect(try await store.settleAccount(named: "photos", provider: "dropbox") == "photos")
        #expect(await refused("nope", "dropbox"))
        #expect(await refused("photos", "s3"), "another provider's account")
        #expect(await refused(nil, "s3"))
        try await fixture.addAccount("more", maxConcurrent: 2)
        #expect(await refused(nil, "dropbox"), "several: the job must say which")
        #expect(try await store.settleAccount(named: "more", provider: "dropbox") == "more")
    }

    static func announceCapacity(_ fixture: any StoreFixture) async throws {
        let recorder = WakeupRecorder(fixture.store)
        defer { recorder.stop() }
        // PostgreSQL's listener connects in the background: announce until it hears one.
        var heard = false
        for _ in 0..<50 where !heard {
            try await fixture.store.announceCapacity()
            heard = await recorder.saw(.jobs, within: .milliseconds(100))
        }
        #expect(heard)
    }

    static func traceFacts(_ fixture: any StoreFixture) async throws {
        #expect(try await fixture.store.traceFacts(for: []).isEmpty)
        try await fixture.enqueue([JobSpec.test()])
        let claimed = try await fixture.store.claim(worker: "w1", queues: ["default"], limit: 1)
        try #require(claimed.count == 1)
        let facts = try await fixture.store.traceFacts(for: claimed)
        #expect(facts[claimed[0].jobID]?.traceparent == nil && facts[claimed[0].jobID]?.lostAttempt == nil, "\(facts)")
    }
}
