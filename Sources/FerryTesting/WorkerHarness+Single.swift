import FerryCore
import FerryStore
import FerryWorker
import Foundation

extension WorkerHarness {
    /// Runs one job through `handler` on a worker of its own until the job finishes (its retries included) and
    /// returns it, with the types of its events in order. The timeout is generous: a loaded machine (make check beside
    /// a build) stalled these retries past 5 s.
    public static func run(
        _ spec: JobSpec = .test(), through handler: any JobHandler, store: MemoryWorkerStore = MemoryWorkerStore(),
        timeout: Duration = .seconds(120)
    ) async throws -> MemoryJob {
        let harness = WorkerHarness(store: store, handler: handler, configuration: configuration(concurrency: 1))
        let id = store.enqueue(spec).jobID
        do {
            let jobs = try await harness.settle([id], timeout: timeout)
            try await harness.stop()
            return jobs[0]
        } catch {
            try? await harness.stop()
            throw error
        }
    }
}
