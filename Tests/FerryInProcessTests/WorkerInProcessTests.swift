import FerryCore
import FerryStore
import FerryTesting
import FerryWorker
import Foundation
import Testing

/// The worker's claim, retry, cancel, rescue and fan-out logic, run in process against `MemoryWorkerStore`: a
/// real `Worker` with real batchers and loops, no PostgreSQL and no child processes.
@Suite("worker in process", .tags(.fast))
struct WorkerInProcessTests {
    static let succeed = TestHandler { _, _ in JobResult(bytes: 1) }

    @Test("claims every due job once and records it succeeded")
    func claimsAndSucceeds() async throws {
        let harness = WorkerHarness(handler: Self.succeed)
        let ids = harness.store.enqueue((0..<40).map { _ in JobSpec.test() })
        let jobs = try await harness.settle(ids)
        try await harness.stop()
        #expect(jobs.allSatisfy { $0.state == .succeeded && $0.attempt == 1 && $0.events == [.enqueued, .claimed, .succeeded] })
    }

    @Test("runs higher priority first with one slot")
    func priorityOrder() async throws {
        let order = Locked<[Int]>([])
        let store = MemoryWorkerStore()
        let specs = [1, 9, 5].map { JobSpec.test(priority: Int64($0)) }
        store.enqueue(specs)
        let harness = WorkerHarness(
            store: store, handler: TestHandler { job, _ in
                order.withLock { $0.append(job.priority) }
                return JobResult()
            }, configuration: WorkerHarness.configuration(concurrency: 1))
        try await harness.settle(specs.map(\.jobID))
        try await harness.stop()
        #expect(order.withLock { $0 } == [9, 5, 1])
    }

    @Test("a retryable failure is retried after its backoff until it succeeds")
    func retriesUntilSuccess() async throws {
        let job = try await WorkerHarness.run(
            through: TestHandler { job, _ in
                guard job.attempt >= 3 else { throw JobFailure.retryable("flaky", "attempt \(job.attempt) failed") }
                return JobResult(bytes: 3)
            })
        #expect(job.state == .succeeded && job.attempt == 3)
        #expect(job.events.filter { $0 == .retryScheduled }.count == 2)
    }

    @Test("attempts run out: the job fails for good and its end cleanups run")
    func attemptsExhausted() async throws {
        let cleaned = Locked(0)
        let job = try await WorkerHarness.run(
            .test(maxAttempts: 2),
            through: TestHandler { _, context in
                context.whenJobEnds { cleaned.withLock { $0 += 1 } }
                throw JobFailure.retryable("flaky", "always")
            })
        #expect(job.state == .failed && job.attempt == 2)
        #expect(job.lastError?.contains("attempts exhausted") == true)
        #expect(cleaned.withLock { $0 } == 1)
    }

    @Test("a permanent failure is not retried")
    func permanentFailure() async throws {
        let job = try await WorkerHarness.run(through: TestHandler { _, _ in throw JobFailure.permanent("bad", "no") })
        #expect(job.state == .failed && job.attempt == 1)
    }

    @Test("a rate-limited attempt is deferred without using an attempt")
    func deferral() async throws {
        let job = try await WorkerHarness.run(
            through: TestHandler { job, _ in
                guard job.lease >= 3 else { throw JobFailure.rateLimited(until: Date().addingTimeInterval(0.01), "429") }
                return JobResult()
            })
        #expect(job.state == .succeeded && job.attempt == 1 && job.lease == 3)
        #expect(job.events.filter { $0 == .deferred }.count == 2)
    }

    @Test("a cancel request stops the running job, runs its end cleanups and records cancelled")
    func cancelRunning() async throws {
        let cleaned = Locked(false)
        let harness = WorkerHarness(
            handler: TestHandler { _, context in
                context.whenJobEnds { cleaned.withLock { $0 = true } }
                var done: Int64 = 0
                while true {
                    done += 1
                    try await context.reportProgress(bytesDone: done)
                    try await Task.sleep(for: .milliseconds(2))  // a job at work until cancelled
                }
            })
        let id = harness.store.enqueue(.test()).jobID
        try await harness.waitUntil("the job to run") { $0.job(id)?.state == .running }
        try harness.store.cancel(id)
        let job = try await harness.settle([id])[0]
        try await harness.stop()
        // Cancelled is the job's last transition (a progress event may land between the request and it).
        #expect(job.state == .cancelled && job.events.contains(.cancelRequested) && job.events.last(where: { $0 != .progress }) == .cancelled,
                "\(job.events)")
        #expect(cleaned.withLock { $0 })
    }

    @Test("a cancel request reaches a job that reports no progress (the worker's cancel poll)")
    func cancelSilentJob() async throws {
        let harness = WorkerHarness(
            handler: TestHandler { _, _ in
                try await Task.sleep(for: .seconds(30))  // silent until cancelled (the test ends long before)
                return JobResult()
            }, configuration: WorkerHarness.configuration(pollOnly: true))
        let id = harness.store.enqueue(.test()).jobID
        try await harness.waitUntil("the job to run") { $0.job(id)?.state == .running }
        try harness.store.cancel(id)
        let job = try await harness.settle([id])[0]
        try await harness.stop()
        #expect(job.state == .cancelled)
    }

    @Test("jobs of a worker that stopped heartbeating are rescued and run again; the dead claim's outcome is refused")
    func rescue() async throws {
        let store = MemoryWorkerStore()
        let ids = store.enqueue((0..<3).map { _ in JobSpec.test() })
        // A worker that claimed and died (kill -9): registered, holding claims, heartbeat going stale.
        try await store.register(WorkerRegistration(name: "ghost", queues: ["default"], concurrency: 4, host: "h", pid: 1))
        let lost = try await store.claim(worker: "ghost", queues: ["default"], limit: 3)
        #expect(lost.count == 3)
        store.ageHeartbeat(of: "ghost", by: 3600)
        let harness = WorkerHarness(store: store, handler: Self.succeed)
        let jobs = try await harness.settle(ids)
        try await harness.stop()
        #expect(jobs.allSatisfy { $0.state == .succeeded && $0.attempt == 2 && $0.events.contains(.rescued) })
        #expect(try await store.record(lost.map { .succeeded($0) }).rejected == Set(ids))
    }

    @Test("a worker whose heartbeats stop has its claims rescued by another worker; its late outcome is fenced off")
    func deadWorkerAmongLive() async throws {
        let store = MemoryWorkerStore()
        let gate = Locked(true)
        // The first worker's handler never finishes on its own, and its heartbeats go nowhere.
        let stuck = WorkerHarness(
            store: store,
            handler: TestHandler { _, _ in
                while gate.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(5)) }  // polls the gate
                return JobResult()
            },
            configuration: WorkerHarness.configuration(name: "stuck", concurrency: 1), liveness: MemoryWorkerStore())
        let id = store.enqueue(.test()).jobID
        try await stuck.waitUntil("the stuck worker to claim") { $0.job(id)?.worker == "stuck" }
        let rescuer = WorkerHarness(store: store, handler: Self.succeed, configuration: WorkerHarness.configuration(name: "rescuer"))
        let job = try await rescuer.settle([id])[0]
        #expect(job.state == .succeeded && job.attempt == 2)
        gate.withLock { $0 = false }
        try await stuck.stop()
        try await rescuer.stop()
        #expect(store.job(id)?.state == .succeeded)
        #expect(store.job(id)?.events.filter { $0 == .succeeded }.count == 1)
    }

    @Test("a listing fans out children that run in the same batch; a repeat creates none")
    func fanOut() async throws {
        let batch = "listing"
        let created = Locked<[Int]>([])
        let harness = WorkerHarness(
            handler: TestHandler { job, context in
                guard !job.spec.contains("\"parent\"") else { return JobResult(bytes: 10) }
                let children = (0..<5).map {
                    FanOutChild(source: "https://example.com/\($0)", destination: "/srv/in/\($0)", account: nil, idempotencyKey: "child-\($0)")
                }
                for page in 0..<2 {
                    let count = try await context.fanOut(children, bytesDone: Int64(page), session: .object(["page": .int(Int64(page))]))
                    created.withLock { $0.append(count) }
                }
                return JobResult()
            })
        let parent = harness.store.enqueue(.test(batch: batch)).jobID
        try await harness.waitUntil("the batch to finish") { store in
            let members = store.jobs.filter { $0.batch == batch }
            return members.count == 6 && members.allSatisfy { $0.state == .succeeded }
        }
        try await harness.stop()
        #expect(created.withLock { $0 } == [5, 0])
        #expect(harness.store.job(parent)?.session == .object(["page": .int(1)]))
    }

    @Test("an account's cap holds across the worker's slots")
    func accountCap() async throws {
        let store = MemoryWorkerStore()
        store.setAccount(MemoryAccount(name: "acct", maxConcurrent: 2))
        let running = Locked((now: 0, peak: 0))
        let ids = store.enqueue((0..<8).map { _ in JobSpec.test(account: "acct") })
        let harness = WorkerHarness(
            store: store,
            handler: TestHandler { _, _ in
                running.withLock { $0.now += 1; $0.peak = max($0.peak, $0.now) }
                try await Task.sleep(for: .milliseconds(5))  // holds the slot, so jobs overlap
                running.withLock { $0.now -= 1 }
                return JobResult()
            }, configuration: WorkerHarness.configuration(concurrency: 8))
        try await harness.settle(ids)
        try await harness.stop()
        #expect(running.withLock { $0.peak } == 2)
    }

    @Test("shutdown releases a job that outlives the shutdown timeout, without using its attempt")
    func shutdownReleases() async throws {
        let harness = WorkerHarness(
            handler: TestHandler { _, _ in
                try await Task.sleep(for: .seconds(30))  // outlives the 500 ms shutdown timeout
                return JobResult()
            })
        let id = harness.store.enqueue(.test()).jobID
        try await harness.waitUntil("the job to run") { $0.job(id)?.state == .running }
        try await harness.stop()
        let job = try #require(harness.store.job(id))
        #expect(job.state == .queued && job.attempt == 0 && job.events.last == .released)
        #expect(!harness.store.isRegistered(harness.worker.configuration.name))
    }

    @Test("an outcome still being written is not released as an orphaned claim: the deferral or success lands")
    func slowOutcomeIsNotOrphaned() async throws {
        let store = MemoryWorkerStore()
        store.holdOutcomes()
        let harness = WorkerHarness(store: store, handler: Self.succeed, configuration: WorkerHarness.configuration(concurrency: 1))
        let id = store.enqueue(.test()).jobID
        try await harness.waitUntil("the outcome to be on its way") { $0.heldRecordCalls == 1 }
        // The claim is older than the orphan grace (5 s) while its outcome is in flight, as under a slow database.
        store.advance(by: 6)
        let checks = store.orphanChecks
        try await harness.waitUntil("three orphan checks") { $0.orphanChecks >= checks + 3 }
        store.releaseOutcomes()
        let job = try await harness.settle([id])[0]
        try await harness.stop()
        #expect(job.events == [.enqueued, .claimed, .succeeded])
    }

    @Test("a lost claim stops the handler without recording anything")
    func lostClaim() async throws {
        let store = MemoryWorkerStore()
        let ended = Locked(false)
        let harness = WorkerHarness(
            store: store,
            handler: TestHandler { job, context in
                defer { ended.withLock { $0 = true } }
                // Someone else holds the job now (as after a rescue and a new claim).
                _ = try await store.record([.released(job, reason: "taken")])
                _ = try await store.claim(worker: "other", queues: ["default"], limit: 1)
                try await context.reportProgress(bytesDone: 1, force: true)
                return JobResult()
            }, configuration: WorkerHarness.configuration(concurrency: 1, rescueAfter: .seconds(30)))
        // A live worker, so the harness's rescue loop leaves its claim alone.
        try await store.register(WorkerRegistration(name: "other", queues: ["default"], concurrency: 1, host: "h", pid: 2))
        let id = store.enqueue(.test()).jobID
        try await harness.waitUntil("the other worker to hold the job") { $0.job(id)?.worker == "other" }
        // The handler ends on its lost claim; stopping then flushes anything the worker would (wrongly) record.
        try await harness.waitUntil("the handler to end") { _ in ended.withLock { $0 } }
        try await harness.stop()
        let job = try #require(store.job(id))
        #expect(job.state == .running && job.worker == "other")
        #expect(job.events == [.enqueued, .claimed, .released, .claimed])
    }
}
