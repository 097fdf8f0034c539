import Foundation

/// What `cancel`, `retry` or `discard` did to each job it looked at.
public struct CommandOutcome: Sendable, Hashable {
    public enum Action: String, Sendable {
        /// A queued job was cancelled at once.
        case cancelled
        /// A running job was asked to stop; its worker records `cancelled` at its next step.
        case cancelRequested = "cancel_requested"
        /// A failed, cancelled or discarded job went back to the queue.
        case requeued
        /// A failed job was discarded.
        case discarded
        /// Nothing to do in the job's state (the state is given).
        case unchanged
    }

    public var jobID: UUID
    public var action: Action
    /// The job's state after the command (`queued` after a retry, `running` while a cancel is pending).
    public var state: String?
}
