import FerryStore
import Foundation
import Synchronization

/// Bytes this worker's running transfers have moved beyond their last progress event, for the status views.
///
/// Progress events are resume points and are written only once bytes are durable (a chunk, a part, a checkpoint),
/// so a file smaller than a chunk would show 0 % until it is done. Handlers note their bytes here as they go (a
/// lock and a compare per piece); the worker publishes the jobs that are ahead of their durable progress about
/// once a second (`ferry.live_progress`), and `ferry.job_status` and `ferry.batch_status` add them.
final class LiveProgress: Sendable {
    struct Entry: Sendable, Equatable {
        var batch: String?
        /// Bytes moved, as the handler last noted them.
        var bytes: Int64
        /// Bytes in the job's last accepted progress event (or claimed with).
        var durable: Int64
        /// The job's size, when known.
        var total: Int64? = nil
    }

    private let entries = Mutex([UUID: Entry]())

    func begin(_ job: ClaimedJob) {
        entries.withLock { $0[job.jobID] = Entry(batch: job.batch, bytes: job.bytesDone, durable: job.bytesDone, total: job.bytesTotal) }
    }

    /// The job has moved `bytes` (monotone: a smaller figure, from a restarted transfer, is ignored until it passes).
    func note(_ jobID: UUID, bytes: Int64) {
        entries.withLock { entries in
            guard var entry = entries[jobID], bytes > entry.bytes else { return }
            entry.bytes = bytes
            entries[jobID] = entry
        }
    }

    /// A progress event with `bytes` was accepted.
    func recorded(_ jobID: UUID, bytes: Int64) {
        entries.withLock { entries in
            guard var entry = entries[jobID] else { return }
            entry.durable = max(entry.durable, bytes)
            entry.bytes = max(entry.bytes, bytes)
            entries[jobID] = entry
        }
    }

    func end(_ jobID: UUID) {
        _ = entries.withLock { $0.removeValue(forKey: jobID) }
    }

    /// Bytes the running transfers of known size have still to move.
    func remaining() -> Int64 {
        entries.withLock { $0.values.reduce(0) { sum, entry in sum + max(0, (entry.total ?? entry.bytes) - entry.bytes) } }
    }

    /// The jobs ahead of their durable progress, with their bytes.
    func ahead() -> [UUID: Entry] {
        entries.withLock { $0.filter { $0.value.bytes > $0.value.durable } }
    }
}
