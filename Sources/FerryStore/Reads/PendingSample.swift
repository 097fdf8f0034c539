import Postgres

/// Queued jobs of a batch or job that share a queue, status and account, from a bounded sample
/// (`FerryStore.pendingSample`): what `ferry wait` reads to say why nothing moves.
public struct PendingSample: Sendable, Hashable {
    public var queue: String
    /// `queued`, `held`, `scheduled` or `retrying` (as `ferry.job_status` says).
    public var status: String
    public var account: String?
    /// Why the account holds them, with the command that fixes it.
    public var heldReason: String?
    /// The earliest time one of them may run.
    public var runAt: PostgresTimestamp
    public var jobs: Int64
    /// Whether their queue is paused.
    public var paused: Bool

    public init(queue: String, status: String, account: String?, heldReason: String?, runAt: PostgresTimestamp, jobs: Int64, paused: Bool) {
        self.queue = queue
        self.status = status
        self.account = account
        self.heldReason = heldReason
        self.runAt = runAt
        self.jobs = jobs
        self.paused = paused
    }
}
