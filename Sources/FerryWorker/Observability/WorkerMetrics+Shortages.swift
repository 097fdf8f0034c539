import FerryCore
import FerryStore
import Prometheus

/// What the machine and the database ran short of: jobs deferred for a full disk or too few file descriptors, and
/// whether the database accepts this worker's writes.
extension WorkerMetrics {
    static let shortageCounters: [ResourceShortage: MetricSpec] = [
        .noSpace: MetricSpec(
            base: "ferry_worker_no_space", unit: "total",
            help: "Jobs this worker deferred because a local write found the file system full or the quota used up (ENOSPC, EDQUOT); the partial file is removed."),
        .fileDescriptors: MetricSpec(
            base: "ferry_worker_fd_limit", unit: "total",
            help: "Jobs this worker deferred because the process ran out of file descriptors (EMFILE, ENFILE)."),
    ]
    static let databaseWritable = MetricSpec(
        base: "ferry_worker_database_writable", unit: "",
        help: "1 while the database accepts this worker's writes, 0 while it refuses them (read-only or out of disk: SQLSTATE 25006, 53100) and the worker claims nothing.")

    /// Registers the shortage counters at 0 for each kind and queue, so an alert has a series before the first.
    func registerShortages(queues: [String]) {
        for spec in Self.shortageCounters.values {
            for kind in JobKind.allCases {
                for queue in queues { _ = counter(spec, [("kind", kind.rawValue), ("queue", queue)]) }
            }
        }
        databaseWritable(true)
    }

    func shortage(_ resource: ResourceShortage, _ job: ClaimedJob) {
        guard let spec = Self.shortageCounters[resource] else { return }
        counter(spec, [("kind", job.kind.rawValue), ("queue", job.queue)]).increment()
    }

    func databaseWritable(_ writable: Bool) {
        gauge(Self.databaseWritable, []).set(Int64(writable ? 1 : 0))
    }
}
