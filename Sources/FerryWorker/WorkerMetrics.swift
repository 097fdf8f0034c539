import FerryStore
import Metrics

/// The worker's metrics: dotted names, low-cardinality labels (kind, queue, outcome; never job ids or paths).
struct WorkerMetrics: Sendable {
    func claimed(_ job: ClaimedJob) { counter("ferry.jobs.claimed", job) }
    func finished(_ outcome: String, _ job: ClaimedJob) { counter("ferry.jobs.\(outcome)", job) }
    func rescued(_ count: Int) { Counter(label: "ferry.jobs.rescued").increment(by: count) }

    func duration(_ job: ClaimedJob, _ elapsed: Duration, outcome: String) {
        Timer(label: "ferry.job.duration", dimensions: [("kind", job.kind.rawValue), ("queue", job.queue), ("outcome", outcome)])
            .recordNanoseconds(elapsed.nanoseconds)
    }

    /// From when the job could first run (enqueued) to when this worker claimed it.
    func startLatency(_ job: ClaimedJob) {
        let micros = max(0, job.claimedAt.microseconds - job.enqueuedAt.microseconds)
        Timer(label: "ferry.job.start_latency", dimensions: [("kind", job.kind.rawValue), ("queue", job.queue)])
            .recordNanoseconds(micros * 1000)
    }

    func bytesMoved(_ bytes: Int64, job: ClaimedJob) {
        guard bytes > 0 else { return }
        Counter(label: "ferry.bytes.moved", dimensions: [("kind", job.kind.rawValue), ("queue", job.queue)])
            .increment(by: Int(bytes))
    }

    func slotsBusy(_ busy: Int, of total: Int) {
        Gauge(label: "ferry.worker.slots.busy").record(busy)
        Gauge(label: "ferry.worker.slots.total").record(total)
    }

    func queue(_ queue: String, state: String, jobs: Int64, oldestWaitingSeconds: Double) {
        Gauge(label: "ferry.queue.depth", dimensions: [("queue", queue), ("state", state)]).record(jobs)
        if state == "queued" {
            Gauge(label: "ferry.queue.oldest_waiting_seconds", dimensions: [("queue", queue)]).record(oldestWaitingSeconds)
        }
    }

    private func counter(_ label: String, _ job: ClaimedJob) {
        Counter(label: label, dimensions: [("kind", job.kind.rawValue), ("queue", job.queue)]).increment()
    }
}

extension Duration {
    var nanoseconds: Int64 {
        components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
    }
}
