/// The state a job's projection is in. Display refinements (scheduled, retrying, cancelling) live in the status
/// view; these are the states the event fold knows.
public enum JobState: String, Sendable, CaseIterable, Codable {
    case queued
    case running
    case succeeded
    case failed
    case cancelled
    /// A failed job the operator gave up on (`ferry discard`).
    case discarded

    /// No event but `requeued` (and `discarded`, of a failed job) changes a job in a terminal state.
    public var isTerminal: Bool {
        switch self {
        case .succeeded, .failed, .cancelled, .discarded: true
        case .queued, .running: false
        }
    }
}
