import FerryStore
import Foundation

/// Why a wait's jobs do not move while none of them runs: their queue is paused, their account holds them, they
/// are deferred until a time, no live worker serves their queue, or every slot of the workers that do is busy.
/// Read at most every `period`, and only while nothing of the wait runs.
struct WaitStall {
    var period: Duration = .seconds(10)
    /// A worker is live when its heartbeat is more recent than this.
    var liveWithin: Double = 30
    private var lastChecked: ContinuousClock.Instant?
    /// The current reason, nil while something runs or before the first look.
    private(set) var reason: String?

    /// Looks again when it is time to. Errors (a role that may not read a view, a lost connection) leave the reason
    /// as it was: the wait itself reports what matters.
    mutating func check(_ target: Wait.Target, snapshot: WaitSnapshot, store: FerryStore, at now: ContinuousClock.Instant) async {
        guard snapshot.running == 0, !snapshot.finished else {
            reason = nil
            lastChecked = nil
            return
        }
        if let lastChecked, now - lastChecked < period { return }
        lastChecked = now
        let filter: FerryStore.JobFilter =
            switch target {
            case .batch(let name): .batch(name)
            case .job(let id): .job(id)
            }
        guard let samples = try? await store.reads.pendingSample(filter) else { return }
        let workers = try? await store.reads.workerStatus()
        reason = Self.reason(samples, workers: workers, liveWithin: liveWithin, now: Date())
    }

    /// Every kind of wait the sample shows, the most blocking first, at most three.
    static func reason(_ samples: [PendingSample], workers: [WorkerStatusRow]?, liveWithin: Double, now: Date) -> String? {
        var parts = [String]()
        func add(_ text: String) { if !parts.contains(text) { parts.append(text) } }
        for sample in samples where sample.paused {
            add("queue \(sample.queue) is paused (ferry queue resume \(sample.queue))")
        }
        for sample in samples where !sample.paused && sample.status == "held" {
            add(sample.heldReason ?? "account \(sample.account ?? "") holds its jobs")
        }
        let deferred = samples.filter { !$0.paused && ($0.status == "scheduled" || $0.status == "retrying") }
        if let first = deferred.min(by: { $0.runAt.date < $1.runAt.date }) {
            let verb = first.status == "retrying" ? "retrying" : "deferred"
            add("\(verb) until \(Self.utc(first.runAt.date)) (in \(ProgressBar.duration(max(0, first.runAt.date.timeIntervalSince(now)))))")
        }
        for queue in Set(samples.filter { !$0.paused && $0.status == "queued" }.map(\.queue)).sorted() {
            guard let workers else { add("due on queue \(queue), waiting for a worker"); continue }
            let serving = workers.filter { $0.queues.contains(queue) && !$0.stopping && $0.heartbeatAgeSeconds < liveWithin }
            let slots = serving.reduce(0) { $0 + $1.concurrency }
            let busy = serving.reduce(Int64(0)) { $0 + $1.running }
            if serving.isEmpty {
                add("no live worker serves queue \(queue) (ferry worker --queues \(queue))")
            } else if busy >= Int64(slots) {
                add("all \(slots) slots of the workers serving queue \(queue) are busy with other jobs")
            } else {
                add("due on queue \(queue): a worker claims it at its next poll")
            }
        }
        return parts.isEmpty ? nil : parts.prefix(3).joined(separator: "; ")
    }

    /// `2026-11-29 10:00:00 UTC`.
    static func utc(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss 'UTC'"
        return formatter.string(from: date)
    }
}
