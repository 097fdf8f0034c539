import FerryCore
import FerryStore
import Foundation

/// A batch's average pace since its first job started, and the time left at that pace: the longer of the time the
/// remaining bytes take at the byte rate (when every size is known: a partial byte total would promise too early an
/// end) and the time the remaining jobs take at the job rate. Bytes include transfers in flight (live progress),
/// so the byte rate moves smoothly instead of per chunk.
struct BatchPace {
    var bytesPerSecond: Double?
    var jobsPerSecond: Double?
    var etaSeconds: Double?
    /// Why there is no ETA for a batch still going: it says so rather than show nothing (or guess).
    var etaUnknown: String?

    init(_ batch: BatchStatusRow, now: Date) {
        guard let started = batch.startedAt?.date else {
            if !batch.done { etaUnknown = "not started" }
            return
        }
        let end = batch.done ? (batch.finishedAt?.date ?? now) : now
        // At least a second: a batch that started a moment ago has a pace, not an infinite one.
        let elapsed = max(1, end.timeIntervalSince(started))
        let finished = batch.succeeded + batch.failed + batch.cancelled + batch.discarded
        if batch.bytesDone > 0 { bytesPerSecond = Double(batch.bytesDone) / elapsed }
        if finished > 0 { jobsPerSecond = Double(finished) / elapsed }
        guard !batch.done else { return }
        var estimates = [Double]()
        if let total = batch.bytesTotal, batch.sizesUnknown == 0, let rate = bytesPerSecond, rate > 0 {
            estimates.append(Double(max(0, total - batch.bytesDone)) / rate)
        }
        if let rate = jobsPerSecond, rate > 0 {
            estimates.append(Double(batch.jobs - finished) / rate)
        }
        etaSeconds = estimates.max()
        if etaSeconds == nil {
            etaUnknown = batch.sizesUnknown > 0 && finished == 0 ? "sizes unknown, no job finished yet" : "nothing moving yet"
        }
    }

    var rateText: String {
        if let bytes = bytesPerSecond { return DashboardView.bytes(Int64(bytes)) + "/s" }
        if let jobs = jobsPerSecond { return String(format: "%.1f jobs/s", jobs) }
        return ""
    }

    var etaText: String { etaSeconds.map { DashboardView.age($0) } ?? etaUnknown.map { "unknown (\($0))" } ?? "" }

    var json: JSONValue {
        .object([
            "bytes_per_second": bytesPerSecond.map(JSONValue.double) ?? .null,
            "jobs_per_second": jobsPerSecond.map(JSONValue.double) ?? .null,
            "eta_seconds": etaSeconds.map(JSONValue.double) ?? .null,
            "eta_unknown": etaUnknown.map(JSONValue.string) ?? .null,
        ])
    }
}
