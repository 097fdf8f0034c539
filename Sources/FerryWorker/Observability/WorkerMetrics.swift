import FerryCore
import FerryProviders
import FerryStore
import Foundation
import Prometheus
import Synchronization

/// The worker's Prometheus metrics, registered with `# HELP` text and low-cardinality labels (kind, queue,
/// state, outcome; never job ids or paths).
///
/// It uses the Prometheus registry directly rather than swift-metrics: the swift-metrics factory registers every
/// metric without help text, and the registry refuses (fatally) a second registration of a name with another.
/// Handles are made once per label set and kept: a registry lookup per job cost more CPU than a no-op job.
final class WorkerMetrics: Sendable {
    /// Outcome counters, by the label `Worker.submit` uses.
    static let outcomes: [String: MetricSpec] = [
        "claimed": MetricSpec(base: "ferry_jobs_claimed", unit: "total", help: "Jobs claimed by this worker."),
        "succeeded": MetricSpec(base: "ferry_jobs_succeeded", unit: "total", help: "Jobs this worker finished successfully."),
        "failed": MetricSpec(
            base: "ferry_jobs_failed", unit: "total",
            help: "Jobs this worker failed for good (error not retryable, or attempts exhausted)."),
        "retried": MetricSpec(base: "ferry_jobs_retried", unit: "total", help: "Attempts that failed with a retryable error; the job runs again after a backoff."),
        "deferred": MetricSpec(
            base: "ferry_jobs_deferred", unit: "total",
            help: "Jobs put back without using an attempt: rate limited by the provider, or this machine short of disk space or file descriptors."),
        "released": MetricSpec(base: "ferry_jobs_released", unit: "total", help: "Jobs released back to the queue unfinished at shutdown (no attempt used)."),
        "held": MetricSpec(base: "ferry_jobs_held", unit: "total", help: "Jobs put back until their account is authorized again (ferry account login)."),
        "cancelled": MetricSpec(base: "ferry_jobs_cancelled", unit: "total", help: "Running jobs this worker stopped on ferry cancel."),
        "rescued": MetricSpec(
            base: "ferry_jobs_rescued", unit: "total",
            help: "Jobs of dead workers (stale heartbeat) this worker put back in the queue, or failed when out of attempts."),
        "poison": MetricSpec(
            base: "ferry_jobs_poison", unit: "total",
            help: "Jobs this worker failed as poison: their claimers kept dying mid-job (--poison-after rescues); no longer handed out until retried."),
    ]
    static let duration = MetricSpec(base: "ferry_job_duration", unit: "seconds", help: "Time from claim to outcome of one attempt, by outcome.")
    static let startLatency = MetricSpec(base: "ferry_job_start_latency", unit: "seconds", help: "Time from enqueue to this claim (includes scheduling and retry backoff).")
    static let movedBytes = MetricSpec(base: "ferry_moved", unit: "bytes_total", help: "Bytes moved by this worker's jobs (uploaded or downloaded).")
    static let slotWait = MetricSpec(
        base: "ferry_worker_slot_wait", unit: "seconds",
        help: "Time from a slot freeing (a job of this worker ended) to the next job starting in it; long when nothing was due.")
    static let slotsBusy = MetricSpec(base: "ferry_worker_slots_busy", unit: "", help: "Jobs this worker is running now.")
    static let slots = MetricSpec(base: "ferry_worker_slots", unit: "", help: "Jobs this worker runs at once at most (--concurrency).")
    static let queueDepth = MetricSpec(
        base: "ferry_queue_depth", unit: "",
        help: "Unfinished jobs per queue and state, fleet-wide: queued (due, scheduled or held) and running. Read from the database; 0 when empty.")
    static let oldestWaiting = MetricSpec(
        base: "ferry_queue_oldest_waiting", unit: "seconds",
        help: "How long the oldest due job of the queue has waited since its run_at; 0 when no job is due.")
    static let paused = MetricSpec(
        base: "ferry_queue_paused", unit: "",
        help: "1 while the queue is paused (ferry queue pause: claims skip it), else 0. Read from the database with ferry_queue_depth.")
    static let depthRead = MetricSpec(
        base: "ferry_queue_depth_read_timestamp", unit: "seconds",
        help: "Unix time of this worker's last successful read of ferry_queue_depth from the database.")

    private struct Key: Hashable {
        var name: String
        var labels: [String]
    }

    let registry: PrometheusCollectorRegistry
    /// The `provider` label of each URI scheme, as the registry's providers declare it.
    let providerLabels: [String: String]
    private let counters = Mutex<[Key: Counter]>([:])
    private let histograms = Mutex<[Key: DurationHistogram]>([:])
    private let gauges = Mutex<[Key: Gauge]>([:])
    private let valueHistograms = Mutex<[Key: ValueHistogram]>([:])
    /// Queues whose depth gauges exist: once exported, a queue is set to 0 when it empties, never dropped.
    private let depthQueues = Mutex<Set<String>>([])
    /// Error reasons exported so far (see `WorkerMetrics+Transfers.swift`).
    let reasons = Mutex<Set<String>>([])

    private static let durationBuckets: [Duration] = [
        .milliseconds(10), .milliseconds(50), .milliseconds(100), .milliseconds(500), .seconds(1), .seconds(5),
        .seconds(15), .seconds(60), .seconds(300), .seconds(900), .seconds(3600), .seconds(4 * 3600), .seconds(12 * 3600),
        .seconds(24 * 3600),
    ]
    private static let latencyBuckets: [Duration] = [
        .milliseconds(5), .milliseconds(10), .milliseconds(50), .milliseconds(100), .milliseconds(500), .seconds(1),
        .seconds(5), .seconds(30), .seconds(60), .seconds(300), .seconds(1800), .seconds(3600), .seconds(4 * 3600),
        .seconds(24 * 3600),
    ]

    private static let slotWaitBuckets: [Duration] = [
        .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(20), .milliseconds(50),
        .milliseconds(100), .milliseconds(200), .milliseconds(500), .seconds(1), .seconds(2), .seconds(5), .seconds(30),
    ]

    /// Registers every outcome counter at 0 for each kind and each of `queues`, so a rate or an alert on
    /// failures has a series to work with before the first failure.
    init(
        registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(), queues: [String] = [], concurrency: Int = 0,
        providers: ProviderRegistry? = nil
    ) {
        self.registry = registry
        var labels = [String: String]()
        for provider in providers?.providers ?? [] {
            for scheme in provider.schemes { labels[scheme] = provider.metricLabel }
        }
        providerLabels = labels
        for spec in Self.outcomes.values {
            for kind in JobKind.allCases {
                for queue in queues { _ = counter(spec, kind: kind, queue: queue) }
            }
        }
        for kind in JobKind.allCases {
            for queue in queues { _ = counter(Self.movedBytes, kind: kind, queue: queue) }
        }
        gauge(Self.slots, []).set(Int64(concurrency))
        gauge(Self.slotsBusy, []).set(Int64(0))
        gauge(Self.bytesInFlight, []).set(Int64(0))
        _ = counter(Self.leaseLapsedJobs, [])
        registerShortages(queues: queues)
    }

    func claimed(_ job: ClaimedJob) { outcome("claimed", job.kind, job.queue).increment() }

    func finished(_ outcome: String, _ job: ClaimedJob) { self.outcome(outcome, job.kind, job.queue).increment() }

    func rescued(_ jobs: [RescuedJob]) {
        for job in jobs {
            guard let kind = job.kind, let queue = job.queue else { continue }
            outcome(job.outcome == "poison" ? "poison" : "rescued", kind, queue).increment()
        }
    }

    func duration(_ job: ClaimedJob, _ elapsed: Duration, outcome: String) {
        histogram(Self.duration, Self.durationBuckets, [("kind", job.kind.rawValue), ("queue", job.queue), ("outcome", outcome)])
            .record(elapsed)
    }

    /// From when the job was enqueued to when this worker claimed it.
    func startLatency(_ job: ClaimedJob) {
        let micros = max(0, job.claimedAt.microseconds - job.enqueuedAt.microseconds)
        histogram(Self.startLatency, Self.latencyBuckets, [("kind", job.kind.rawValue), ("queue", job.queue)])
            .record(.microseconds(micros))
    }

    /// From a slot freeing to the next job starting in it.
    func slotWait(_ elapsed: Duration) {
        histogram(Self.slotWait, Self.slotWaitBuckets, []).record(elapsed)
    }

    func bytesMoved(_ bytes: Int64, job: ClaimedJob) {
        guard bytes > 0 else { return }
        counter(Self.movedBytes, kind: job.kind, queue: job.queue).increment(by: bytes)
        providerBytes(bytes, job)
    }

    func slotsBusy(_ busy: Int) {
        gauge(Self.slotsBusy, []).set(Int64(busy))
    }

    /// Sets the queue gauges from one read: every queue in `rows`, and 0 for every queue exported before that
    /// the read no longer lists (drained), so alerts on backlog clear.
    func queueDepth(_ rows: [QueueDepthRow], paused: Set<String> = [], readAt: Date = Date()) {
        let listed = Dictionary(rows.map { ($0.queue, $0) }, uniquingKeysWith: { first, _ in first })
        // A paused queue is listed even without jobs, and stays listed (at 0) once resumed.
        let queues = depthQueues.withLock { known -> Set<String> in
            known.formUnion(listed.keys)
            known.formUnion(paused)
            return known
        }
        for queue in queues {
            let row = listed[queue] ?? QueueDepthRow(queue: queue, queued: 0, running: 0, oldestWaitingSeconds: 0)
            gauge(Self.queueDepth, [("queue", queue), ("state", "queued")]).set(row.queued)
            gauge(Self.queueDepth, [("queue", queue), ("state", "running")]).set(row.running)
            gauge(Self.oldestWaiting, [("queue", queue)]).set(row.oldestWaitingSeconds)
            gauge(Self.paused, [("queue", queue)]).set(Int64(paused.contains(queue) ? 1 : 0))
        }
        gauge(Self.depthRead, []).set(readAt.timeIntervalSince1970)
    }

    private func outcome(_ label: String, _ kind: JobKind, _ queue: String) -> Counter {
        guard let spec = Self.outcomes[label] else { preconditionFailure("no counter for outcome \(label)") }
        return counter(spec, kind: kind, queue: queue)
    }

    private func counter(_ spec: MetricSpec, kind: JobKind, queue: String) -> Counter {
        counter(spec, [("kind", kind.rawValue), ("queue", queue)])
    }

    func counter(_ spec: MetricSpec, _ labels: [(String, String)]) -> Counter {
        handle(counters, spec, labels) { registry.makeCounter(descriptor: spec.descriptor, labels: labels) }
    }

    private func histogram(_ spec: MetricSpec, _ buckets: [Duration], _ labels: [(String, String)]) -> DurationHistogram {
        handle(histograms, spec, labels) {
            registry.makeDurationHistogram(descriptor: spec.descriptor, labels: labels, buckets: buckets)
        }
    }

    /// A histogram of plain values (counts, sizes), for what a provider measures of its own protocol.
    func valueHistogram(_ spec: MetricSpec, buckets: [Double], _ labels: [(String, String)] = []) -> ValueHistogram {
        handle(valueHistograms, spec, labels) {
            labels.isEmpty
                ? registry.makeValueHistogram(descriptor: spec.descriptor, buckets: buckets)
                : registry.makeValueHistogram(descriptor: spec.descriptor, labels: labels, buckets: buckets)
        }
    }

    func gauge(_ spec: MetricSpec, _ labels: [(String, String)]) -> Gauge {
        handle(gauges, spec, labels) {
            labels.isEmpty
                ? registry.makeGauge(descriptor: spec.descriptor)
                : registry.makeGauge(descriptor: spec.descriptor, labels: labels)
        }
    }

    private func handle<Metric: Sendable>(
        _ cache: borrowing Mutex<[Key: Metric]>, _ spec: MetricSpec, _ labels: [(String, String)], make: () -> Metric
    ) -> Metric {
        let key = Key(name: spec.name, labels: labels.flatMap { [$0.0, $0.1] })
        if let found = cache.withLock({ $0[key] }) { return found }
        // The registry returns the existing metric for a known name and labels, so a race makes no duplicate.
        let made = make()
        return cache.withLock { cached in
            if let found = cached[key] { return found }
            cached[key] = made
            return made
        }
    }
}
