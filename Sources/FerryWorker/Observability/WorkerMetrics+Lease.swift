import FerryStore

/// The fence for effects (see ``WorkerLease``).
extension WorkerMetrics {
    static let leaseLapsedJobs = MetricSpec(
        base: "ferry_worker_lease_lapsed", unit: "total",
        help: "Jobs this worker stopped before a commit, rename or deletion because no heartbeat reached the database within the rescue window (another worker may run them); nothing was recorded for them.")

    /// One job stopped by ``LeaseLapsed``.
    func leaseLapsed(_ job: ClaimedJob) {
        counter(Self.leaseLapsedJobs, []).increment()
    }
}
