import FerryStore
import Foundation
import Synchronization

/// Bytes this worker's running transfers have moved beyond their last progress event, for the status views.
///
/// Progress events are resume points and are written only once bytes are durable (a chunk, a part, a checkpoint),
/// so a file smaller than a chunk would show 0 % until it is done. Handlers note their bytes here as they go (a
/// lock and a compare per piece); the worker publishes the jobs that are ahead of their durable progress about
/// once a second (`ferry.live_progress`), and `ferry.job_status` and `ferry.batch_status` add them.
///
/// Uploads note a piece when they read it for the request, before it is sent: the figure shown is the one noted
/// before the last (`bytes`), the pieces the transport has taken since it asked for the next one. A file of one
/// piece (most small files) shows its bytes when its request is answered, not 99.9 % from its first second while
/// the piece still waits in a socket buffer.
final class LiveProgress: Sendable {
    struct Entry: Sendable, Equatable {
        var batch: String?
        /// Bytes moved: what the handler noted before its last note, or its last progress event.
        var bytes: Int64
        /// Bytes in the job's last accepted progress event (or claimed with).
        var durable: Int64
        /// The job's size, when known.
        var total: Int64? = nil
        /// The handler's last note: read for the transport, not yet known to be taken by it.
        var handed: Int64 = 0
    }

    private let entries = Mutex([UUID: Entry]())

    func begin(_ job: ClaimedJob) {
        entries.withLock {
            $0[job.jobID] = Entry(batch: job.batch, bytes: job.bytesDone, durable: job.bytesDone, total: job.bytesTotal, handed: job.bytesDone)
        }
    }

    /// The job has handed `bytes` to its transport (monotone: a smaller figure, from a restarted transfer, is ignored
    /// until it passes); what it handed before is now taken.
    func note(_ jobID: UUID, bytes: Int64) {
        entries.withLock { entries in
            guard var entry = entries[jobID], bytes > entry.handed else { return }
            entry.bytes = max(entry.bytes, entry.handed)
            entry.handed = bytes
            entries[jobID] = entry
        }
    }

    /// A progress event with `bytes` was accepted.
    func recorded(_ jobID: UUID, bytes: Int64) {
        entries.withLock { entries in
            guard var entry = entries[jobID] else { return }
            entry.durable = max(entry.durable, bytes)
            entry.bytes = max(entry.bytes, bytes)
            entry.handed = max(entry.handed, bytes)
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

    /// The jobs ahead of their durable progress, with their bytes (a new hand-over alone is no change to publish).
    func ahead() -> [UUID: Entry] {
        entries.withLock {
            $0.filter { $0.value.bytes > $0.value.durable }.mapValues { entry in
                var shown = entry
                shown.handed = entry.bytes
                return shown
            }
        }
    }
}
