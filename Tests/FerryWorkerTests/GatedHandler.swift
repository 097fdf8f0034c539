import FerryStore
import Synchronization

@testable import FerryWorker

/// Runs `inner` once the test opens the gate (polled: the handler's task waits at its start), and keeps how the
/// attempt ended, so a test can place a worker's attempt after a change of its own making (a lapsed lease).
final class GatedHandler: JobHandler, Sendable {
    let inner: any JobHandler
    private let state = Mutex<(open: Bool, ended: Result<JobResult, any Error>?)>((false, nil))

    init(_ inner: any JobHandler) {
        self.inner = inner
    }

    var name: String { inner.name }
    var usesLocalFiles: Bool { inner.usesLocalFiles }

    func open() { state.withLock { $0.open = true } }

    /// How the attempt ended, once it did.
    var ended: Result<JobResult, any Error>? { state.withLock { $0.ended } }

    func run(_ job: ClaimedJob, context: JobContext) async throws -> JobResult {
        while !state.withLock({ $0.open }) { try await Task.sleep(for: .milliseconds(5)) }  // polls the gate
        do {
            let result = try await inner.run(job, context: context)
            state.withLock { $0.ended = .success(result) }
            return result
        } catch {
            state.withLock { $0.ended = .failure(error) }
            throw error
        }
    }
}
