/// Why a worker should look at the queue again, as a `WorkerStore` announces it.
public enum WorkerWakeup: Sendable, Hashable {
    /// New or freed work: a job was enqueued or became claimable, or an account's slot freed (`ferry_jobs`).
    case jobs
    /// Someone asked to cancel a running job (`ferry_cancel`).
    case cancel
    /// Announcements may have been lost (the listener reconnected): look at both again.
    case missed
}
