import FerryCore
import FerryStore
import FerryTesting
import Foundation
import Testing

@testable import FerryWorker

/// The outcome batcher's window: finishes that come together share a statement, and one that comes alone is
/// written at once. A capped account's next claim waits for its freed slot's outcome, so a window there delayed
/// every transfer by its length (2 ms of a 40 ms Drive upload behind 30 ms of latency) and saved no statement.
@Suite("outcome batching window", .tags(.fast))
struct CompletionWindowTests {
    @Test("the window is waited only after a statement that took several outcomes, never when full or finishing")
    func rule() {
        #expect(!CompletionBatcher.waitsForCompany(buffered: 1, lastBatch: 0, batchSize: 200, finishing: false))
        #expect(!CompletionBatcher.waitsForCompany(buffered: 1, lastBatch: 1, batchSize: 200, finishing: false))
        #expect(CompletionBatcher.waitsForCompany(buffered: 1, lastBatch: 2, batchSize: 200, finishing: false))
        #expect(CompletionBatcher.waitsForCompany(buffered: 150, lastBatch: 200, batchSize: 200, finishing: false))
        #expect(!CompletionBatcher.waitsForCompany(buffered: 200, lastBatch: 200, batchSize: 200, finishing: false))
        #expect(!CompletionBatcher.waitsForCompany(buffered: 3, lastBatch: 200, batchSize: 200, finishing: true))
    }

    @Test("outcomes that come one at a time are not held for the window: a 10-minute window delays none of them")
    func loneOutcomesAreWrittenAtOnce() async throws {
        var configuration = WorkerHarness.configuration(concurrency: 1)
        configuration.completionFlushInterval = .seconds(600)
        let harness = WorkerHarness(handler: TestHandler { _, _ in JobResult(bytes: 1) }, configuration: configuration)
        let ids = harness.store.enqueue((0..<5).map { _ in JobSpec.test() })
        // With the window waited every time, the first outcome alone would take 10 minutes.
        let jobs = try await harness.settle(ids, timeout: .seconds(300))
        try await harness.stop()
        #expect(jobs.count == 5 && jobs.allSatisfy { $0.state == .succeeded })
    }

    @Test("a capped account's freed slot is taken by the next job when its outcome is written: no poll needed, none waits out the 10-minute poll interval")
    func freedAccountSlotWakesTheClaim() async throws {
        var configuration = WorkerHarness.configuration(concurrency: 4)
        configuration.pollInterval = .seconds(600)
        let store = MemoryWorkerStore()
        store.setAccount(MemoryAccount(name: "capped", maxConcurrent: 1))
        let specs = (0..<6).map { _ in JobSpec.test(account: "capped") }
        store.enqueue(specs)
        // The handler's end no longer wakes the claim loop for an account's job (its slot is still taken in the
        // store until the outcome is written): the write's own wake-up must start each next job.
        let harness = WorkerHarness(store: store, handler: TestHandler { _, _ in JobResult(bytes: 1) }, configuration: configuration)
        let jobs = try await harness.settle(specs.map(\.jobID), timeout: .seconds(300))
        try await harness.stop()
        #expect(jobs.count == 6 && jobs.allSatisfy { $0.state == .succeeded && $0.attempt == 1 })
    }
}
