import Foundation
import Synchronization

/// Test seam: an `errno` to fail a job's local writes with once they would pass a given size, so tests reach a
/// full disk (`ENOSPC`) without mounting a small file system (which needs root). Keyed by job, so tests running
/// side by side in one process do not see each other's faults; never set outside tests (one atomic load per write).
enum LocalWriteFaults {
    private static let armed = Atomic<Bool>(false)
    private static let faults = Mutex<[UUID: (afterBytes: Int64, code: Int32)]>([:])

    /// Fails writes of `job`'s temporary file that would end past `afterBytes` with `code`.
    static func inject(_ code: Int32, afterBytes: Int64, job: UUID) {
        faults.withLock { $0[job] = (afterBytes, code) }
        armed.store(true, ordering: .releasing)
    }

    /// Removes `job`'s fault.
    static func clear(job: UUID) {
        faults.withLock { _ = $0.removeValue(forKey: job) }
    }

    /// Throws the injected failure when a write of `job` to `path` would end at `end`, past the fault's size.
    static func check(job: UUID, path: String, end: Int64) throws {
        guard armed.load(ordering: .acquiring), let fault = faults.withLock({ $0[job] }), end > fault.afterBytes else { return }
        throw POSIXFailure(operation: "write", path: path, code: fault.code)
    }
}
