import Postgres

/// One row of `ferry.queue_depth`: a queue's unfinished jobs and how long its oldest due job has waited.
public struct QueueDepthRow: Sendable, Hashable {
    public var queue: String
    /// Jobs in state `queued` (due now, scheduled for later, or held by their account).
    public var queued: Int64
    public var running: Int64
    /// Seconds since the oldest due job's `run_at`; 0 when no job is due.
    public var oldestWaitingSeconds: Double

    public init(queue: String, queued: Int64, running: Int64, oldestWaitingSeconds: Double) {
        self.queue = queue
        self.queued = queued
        self.running = running
        self.oldestWaitingSeconds = oldestWaitingSeconds
    }
}
