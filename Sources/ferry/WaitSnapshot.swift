import FerryCore
import FerryStore

/// What `ferry wait` knows about its batch or job at one moment.
struct WaitSnapshot {
    /// "batch NAME" or "job ID", as shown in output.
    var label: String
    var jobs: Int64
    var succeeded: Int64
    var failed: Int64
    var cancelled: Int64
    /// Failed jobs given up on (`ferry discard`): finished, and not successful.
    var discarded: Int64 = 0
    var running: Int64
    var bytesDone: Int64
    var bytesTotal: Int64?
    /// Jobs whose size is not known yet: `bytesTotal` is then a lower bound.
    var sizesUnknown: Int64
    /// Share done, 0…1: by bytes when every size is known, otherwise by finished jobs (as the status views).
    var fraction: Double
    /// No job is queued or running.
    var finished: Bool
    /// Jobs that succeeded without moving data (the destination held them already), and their bytes.
    var unchanged: Int64 = 0
    var unchangedBytes: Int64 = 0
    /// What of the batch `ferry archive` moved out (not in the counts above).
    var archived = BatchStatusRow.ArchivedShare()
    /// Bytes actually moved: what is done, less what was already there.
    var bytesTransferred: Int64 { max(0, bytesDone - unchangedBytes) }

    var jobsFinished: Int64 { succeeded + failed + cancelled + discarded }
    var unsuccessful: Int64 { failed + cancelled + discarded }
    /// `1 failed, 0 cancelled`, and `, 2 discarded` when any were.
    var unsuccessfulCounts: String {
        "\(failed) failed, \(cancelled) cancelled" + (discarded > 0 ? ", \(discarded) discarded" : "")
    }

    init(batch row: BatchStatusRow) {
        label = "batch \(row.batch)"
        jobs = row.jobs
        succeeded = row.succeeded
        failed = row.failed
        cancelled = row.cancelled
        discarded = row.discarded
        running = row.running
        bytesDone = row.bytesDone
        bytesTotal = row.bytesTotal
        sizesUnknown = row.sizesUnknown
        fraction = (Double(row.percent) ?? 0) / 100
        finished = row.done
        unchanged = row.unchanged
        unchangedBytes = row.unchangedBytes
        archived = row.archived
    }

    init(job row: JobStatusRow) {
        label = "job \(row.jobID.uuidString.lowercased())"
        jobs = 1
        succeeded = row.state == "succeeded" ? 1 : 0
        failed = row.state == "failed" ? 1 : 0
        cancelled = row.state == "cancelled" ? 1 : 0
        discarded = row.state == "discarded" ? 1 : 0
        running = row.state == "running" ? 1 : 0
        bytesDone = row.bytesDone
        bytesTotal = row.bytesTotal
        sizesUnknown = row.bytesTotal == nil ? 1 : 0
        finished = JobState(rawValue: row.state)?.isTerminal ?? false
        fraction = row.percent.flatMap(Double.init).map { $0 / 100 } ?? (finished ? 1 : 0)
    }
}
