import FerryCore
import FerryStore
import FerryTesting
import Foundation
import Testing

@testable import FerryWorker

/// Issue 36: the lease deadline a worker tracks for the fence on its effects (``WorkerLease``), alone and in a
/// worker whose heartbeats fail. The fence at each provider's commit is tested in FerryWorkerTests' LeaseFenceTests.
@Suite("worker lease", .tags(.fast))
struct WorkerLeaseTests {
    @Test("the deadline runs from the heartbeat's sending, less the margin; a late answer or a revocation fences earlier claims for good")
    func deadlineArithmetic() {
        #expect(WorkerLease.defaultMargin(rescueAfter: .seconds(15)) == .seconds(5))
        #expect(WorkerLease.defaultMargin(rescueAfter: .seconds(60)) == .seconds(10))
        #expect(WorkerLease.defaultMargin(rescueAfter: .seconds(3)) == .seconds(1), "at most a third of a short rescue window")

        let lease = WorkerLease(rescueAfter: .seconds(15))
        let sent = ContinuousClock.now
        #expect(lease.remaining(generation: 0, now: sent) == nil, "no lease before the first registration")
        lease.renewed(sentAt: sent, answeredAt: sent + .seconds(1))
        #expect(lease.deadline == sent + .seconds(10), "sent + rescueAfter - margin, however late the answer came")
        #expect(lease.remaining(generation: 0, now: sent + .seconds(4)) == .seconds(6))
        #expect(lease.remaining(generation: 0, extra: .seconds(7), now: sent + .seconds(4)) == nil, "a caller's own margin counts too")
        #expect(lease.remaining(generation: 0, now: sent + .seconds(10)) == nil, "lapsed at the deadline")

        // An older heartbeat answered late never moves the deadline back.
        lease.renewed(sentAt: sent - .seconds(3), answeredAt: sent + .seconds(2))
        #expect(lease.deadline == sent + .seconds(10) && lease.generation == 0)
        // A renewal answered within the lease extends it for the same claims.
        lease.renewed(sentAt: sent + .seconds(5), answeredAt: sent + .seconds(6))
        #expect(lease.deadline == sent + .seconds(15) && lease.generation == 0)
        #expect(lease.remaining(generation: 0, now: sent + .seconds(12)) == .seconds(3))

        // Answered after the deadline: a rescue may have happened in the gap, so earlier claims stay fenced.
        #expect(lease.renewed(sentAt: sent + .seconds(16), answeredAt: sent + .seconds(16)))
        #expect(lease.generation == 1 && lease.deadline == sent + .seconds(26))
        #expect(lease.remaining(generation: 0, now: sent + .seconds(17)) == nil, "claims of before the gap")
        #expect(lease.remaining(generation: 1, now: sent + .seconds(17)) == .seconds(9), "claims made since")

        // Declared dead: every claim so far is someone else's, whatever the time.
        lease.revoke()
        #expect(lease.generation == 2 && lease.remaining(generation: 1, now: sent + .seconds(17)) == nil)
        #expect(lease.remaining(generation: 2, now: sent + .seconds(17)) == nil, "until the next registration")
        lease.renewed(sentAt: sent + .seconds(17), answeredAt: sent + .seconds(17))
        #expect(lease.generation == 2 && lease.remaining(generation: 2, now: sent + .seconds(17)) == .seconds(10))
    }

    @Test("failed heartbeats never extend the lease: it lapses, claims pause, and the next stored heartbeat starts a new generation")
    func failedHeartbeatsLapse() async throws {
        let store = MemoryWorkerStore()
        let harness = WorkerHarness(
            store: store, handler: TestHandler { _, _ in JobResult() },
            configuration: WorkerHarness.configuration(name: "cut-off", rescueAfter: .seconds(3)))
        let lease = harness.worker.lease
        try await harness.waitUntil(timeout: .seconds(300), "the registration to start the lease") { _ in
            lease.remaining(generation: lease.generation) != nil
        }
        store.failHeartbeats(of: "cut-off")
        let generation = lease.generation
        // Heartbeats go every 40 ms and all fail: only the last stored one's deadline (2 s after it) stands.
        try await harness.waitUntil(timeout: .seconds(300), "the lease to lapse") { _ in lease.remaining(generation: generation) == nil }
        #expect(lease.generation == generation, "a failed heartbeat changes nothing")
        let id = store.enqueue(.test()).jobID
        try await harness.waitUntil(timeout: .seconds(300), "a few more failed heartbeats") { _ in
            (lease.deadline.map { ContinuousClock.now - $0 } ?? .zero) > .milliseconds(200)
        }
        #expect(store.job(id)?.state == .queued, "no claim without a lease")
        store.failHeartbeats(of: "cut-off", false)
        try await harness.waitUntil(timeout: .seconds(300), "a stored heartbeat") { _ in lease.remaining(generation: lease.generation) != nil }
        #expect(lease.generation > generation && lease.remaining(generation: generation) == nil, "claims of before the gap stay fenced")
        try await harness.settle([id], timeout: .seconds(300))
        try await harness.stop()
    }
}
