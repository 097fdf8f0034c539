import FerryStore
import Logging
import Tracing

/// What the worker does when its lease may have lapsed (see ``WorkerLease`` and ``LeaseLapsed``).
extension Worker {
    /// A stored heartbeat (or registration) sent at `sent`. Says so once when it ends a stretch in which the
    /// lease had lapsed: the jobs claimed before stay fenced (they stop before their next irreversible step).
    func noteLeaseRenewed(sentAt sent: ContinuousClock.Instant) {
        guard lease.renewed(sentAt: sent) else { return }
        logger.warning(
            "heartbeats reach the database again after the lease lapsed; jobs claimed before stop before their commit and run again after their rescue",
            metadata: ["running_jobs": "\(running.count)"])
    }

    /// A job stopped before an irreversible step because the lease lapsed: nothing is recorded (the claim is, or
    /// soon will be, someone else's, and its events would be refused), the job's own task ends, and the job runs
    /// again after its rescue (or, if the heartbeats came back before any rescue, after the orphaned-claim release).
    func leaseLapsed(_ lapsed: LeaseLapsed, _ job: ClaimedJob, logger: Logger) {
        metrics.leaseLapsed(job)
        Self.attemptSpan?.setStatus(SpanStatus(code: .error, message: LeaseLapsed.code))
        logger.warning(
            "lease lapsed: no heartbeat reached the database within the rescue window, so another worker may run this job; stopping without \(lapsed.step) and without recording",
            metadata: [
                "code": "\(LeaseLapsed.code)", "step": "\(lapsed.step)", "rescue_after": "\(configuration.rescueAfter)",
                "margin": "\(lease.margin)",
            ])
    }

    /// Whether claims made now are safe from rescue (see ``WorkerLease``).
    var holdsLease: Bool { lease.remaining(generation: lease.generation) != nil }

    /// Heartbeats must come well within the lease, or claims pause and effects are fenced between two of them.
    func warnIfLeaseTight() {
        let window = configuration.rescueAfter - lease.margin
        guard configuration.heartbeatInterval * 2 > window else { return }
        logger.warning(
            "the heartbeat interval is long for --rescue-after: the lease lapses between heartbeats that are a little late, which pauses claims and stops commits; keep --rescue-after at least 3 times --heartbeat-interval",
            metadata: ["heartbeat_interval": "\(configuration.heartbeatInterval)", "rescue_after": "\(configuration.rescueAfter)", "margin": "\(lease.margin)"])
    }
}
