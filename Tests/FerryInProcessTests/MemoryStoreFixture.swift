import FerryCore
import FerryStore
import FerryTesting
import Foundation

/// The contract's view of `MemoryWorkerStore`.
struct MemoryStoreFixture: StoreFixture {
    let memory = MemoryWorkerStore()
    var store: any WorkerStore { memory }

    func enqueue(_ specs: [JobSpec]) async throws { memory.enqueue(specs) }

    func cancel(_ jobID: UUID) async throws { try memory.cancel(jobID) }

    func snapshot(_ jobID: UUID) async throws -> JobSnapshot {
        guard let job = memory.job(jobID) else { throw FerryStoreError(.notFound, "no such job") }
        return JobSnapshot(
            state: job.state, attempt: job.attempt, lease: job.lease, worker: job.worker, cancelRequested: job.cancelRequested,
            runAt: job.runAt, queue: job.queue, batch: job.batch, priority: job.priority, bytesDone: job.bytesDone,
            lastError: job.lastError)
    }

    func batch(_ batch: String) async throws -> [UUID] {
        memory.jobs.filter { $0.batch == batch }.map(\.jobID)
    }

    func addAccount(_ name: String, maxConcurrent: Int) async throws {
        memory.setAccount(MemoryAccount(name: name, maxConcurrent: maxConcurrent))
    }

    func setAccountLimits(_ name: String, requestsPerSecond: Double?, bytesPerSecond: Int64?) async throws {
        memory.setAccountLimits(name, requestsPerSecond: requestsPerSecond, bytesPerSecond: bytesPerSecond)
    }

    func expireAccountShares(of worker: String) async throws { memory.expireAccountShares(of: worker) }

    func pauseQueue(_ queue: String) async throws { memory.setQueuePaused(queue, paused: true) }

    func stopHeartbeats(of worker: String) async throws { memory.ageHeartbeat(of: worker, by: 3600) }

    func liveBytes(of jobID: UUID) async throws -> Int64? { memory.liveBytes(of: jobID) }

    func close() async {}
}
