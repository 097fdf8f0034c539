import FerryStore
import Metrics
import Synchronization

/// The worker's metrics: dotted names, low-cardinality labels (kind, queue, outcome; never job ids or paths).
///
/// Handles are made once per label set and kept: making a `Counter` asks the backend to look the metric up by
/// name and labels, which (Prometheus sanitizes names on every lookup) cost more CPU per job than the job itself.
final class WorkerMetrics: Sendable {
    private struct Key: Hashable {
        var label: String
        var dimensions: [String]
    }

    private let counters = Mutex<[Key: Counter]>([:])
    private let timers = Mutex<[Key: Timer]>([:])

    func claimed(_ job: ClaimedJob) { counter("ferry.jobs.claimed", job).increment() }
    func finished(_ outcome: String, _ job: ClaimedJob) { counter("ferry.jobs.\(outcome)", job).increment() }
    func rescued(_ count: Int) { Counter(label: "ferry.jobs.rescued").increment(by: count) }

    func duration(_ job: ClaimedJob, _ elapsed: Duration, outcome: String) {
        timer("ferry.job.duration", [("kind", job.kind.rawValue), ("queue", job.queue), ("outcome", outcome)])
            .recordNanoseconds(elapsed.nanoseconds)
    }

    /// From when the job could first run (enqueued) to when this worker claimed it.
    func startLatency(_ job: ClaimedJob) {
        let micros = max(0, job.claimedAt.microseconds - job.enqueuedAt.microseconds)
        timer("ferry.job.start_latency", [("kind", job.kind.rawValue), ("queue", job.queue)]).recordNanoseconds(micros * 1000)
    }

    func bytesMoved(_ bytes: Int64, job: ClaimedJob) {
        guard bytes > 0 else { return }
        handle(counters, "ferry.bytes.moved", [("kind", job.kind.rawValue), ("queue", job.queue)]) {
            Counter(label: $0, dimensions: $1)
        }.increment(by: Int(bytes))
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

    private func counter(_ label: String, _ job: ClaimedJob) -> Counter {
        handle(counters, label, [("kind", job.kind.rawValue), ("queue", job.queue)]) { Counter(label: $0, dimensions: $1) }
    }

    private func timer(_ label: String, _ dimensions: [(String, String)]) -> Timer {
        handle(timers, label, dimensions) { Timer(label: $0, dimensions: $1) }
    }

    private func handle<Metric: Sendable>(
        _ cache: borrowing Mutex<[Key: Metric]>, _ label: String, _ dimensions: [(String, String)],
        make: (String, [(String, String)]) -> Metric
    ) -> Metric {
        let key = Key(label: label, dimensions: dimensions.flatMap { [$0.0, $0.1] })
        if let found = cache.withLock({ $0[key] }) { return found }
        let made = make(label, dimensions)
        return cache.withLock { cached in
            if let found = cached[key] { return found }
            cached[key] = made
            return made
        }
    }
}

extension Duration {
    var nanoseconds: Int64 {
        components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
    }
}
