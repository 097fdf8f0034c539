/// Why a worker should look at the queue again, as a `WorkerStore` announces it.
public enum WorkerWakeup: Sendable, Hashable {
    /// New or freed work: a job was enqueued or became claimable, or an account's slot freed (`ferry_jobs`).
    case jobs
    /// Someone asked to cancel a running job (`ferry_cancel`).
    case cancel
    /// Someone asked a schedule to run now (`ferry schedule run`: `ferry_jobs` with payload `schedule`).
    case schedules
    /// Announcements may have been lost (the listener reconnected): look at both again.
    case missed
    /// The store's own test announcement did not come back: announcements do not reach this worker (a
    /// transaction-mode pooler such as PgBouncer between it and PostgreSQL). Poll often instead.
    case unheard
}
