/// What `ferry archive restore` did.
public enum RestoreOutcome: Sendable, Equatable {
    /// The jobs and their events are back in the log.
    case restored(jobs: Int, events: Int)
    /// The archive was restored before: nothing was written.
    case alreadyRestored
}
