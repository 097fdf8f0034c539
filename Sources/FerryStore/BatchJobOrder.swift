/// How a batch's job list is ordered on the dashboard.
public enum BatchJobOrder: String, Sendable, CaseIterable {
    /// Enqueue order (job id): the whole batch, by keyset on the primary key or the batch index.
    case enqueued
    /// Running first, then queued, failed, cancelled, discarded, succeeded; enqueue order within each: one range of the batch
    /// index per state, so the whole batch by keyset at any depth.
    case status
    /// Largest first (unknown sizes last), among the batch's first ``FerryStore/sortWindow`` jobs.
    case size
    /// Latest started first (not yet started last), among the batch's first ``FerryStore/sortWindow`` jobs.
    case started

    /// The states in `status` order.
    public static let statusOrder = ["running", "queued", "failed", "cancelled", "discarded", "succeeded"]
}
