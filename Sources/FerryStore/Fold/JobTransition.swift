import FerryCore

/// What one event does to an existing job: the state machine of `ferry.apply_event`
/// (migrations/definitions/305_apply_event.sql), once in Swift.
///
/// ``JobFold`` applies a transition to replayed rows and the in-memory `WorkerStore` to its jobs, each to its own
/// representation of a job, so the two cannot fold by different rules. A transition names where each changed
/// column's value comes from; the event's values stay with the caller.
public struct JobTransition: Sendable, Equatable {
    /// Where a column's new value comes from.
    public enum Change: Sendable, Equatable {
        /// The column is left as it is.
        case keep
        /// The column becomes NULL.
        case clear
        /// The event's value for the column (NULL when the event has none).
        case event
        /// The event's value where the event has one; else the column is left as it is.
        case eventIfPresent
        /// The time the event was recorded.
        case now
    }

    /// How the attempt counter moves.
    public enum AttemptChange: Sendable, Equatable {
        /// The attempt goes on (progress) or ended using it (retry, rescue, outcome).
        case keep
        /// A claim starts the next attempt.
        case next
        /// Deferred or released: the attempt is handed back, not used.
        case giveBack
        /// A retry by hand starts the job's attempts over.
        case reset
    }

    /// The job's state afterwards.
    public var state: JobState
    /// How `attempt` moves.
    public var attempt = AttemptChange.keep
    /// A claim: the lease moves to the next, the event's worker holds the job, `started_at` is set on the first.
    public var claims = false
    /// `worker`: cleared when the job leaves its worker (a claim sets it, see ``claims``).
    public var worker = Change.keep
    /// `run_at`: the event's (a retry, a deferral) or the event's time (the job may run again now).
    public var runAt = Change.keep
    /// `last_error`: the event's text (``textKey(of:)``), or cleared by a success.
    public var lastError = Change.keep
    /// `finished_at`: set when the job ends, cleared by a retry by hand.
    public var finishedAt = Change.keep
    /// `cancel_requested` afterwards, `nil` when unchanged.
    public var cancelRequested: Bool?
    /// progress and succeeded: `bytes_done` and `bytes_total` where the event has them.
    public var takesBytes = false
    /// progress: the event's `session`, when the data has the key (a JSON null clears it).
    public var takesSession = false
    /// succeeded: the event's `result`.
    public var takesResult = false
    /// resolved: `source`, `destination`, `account`, `spec` and `bytes_total` where the event has them.
    public var takesResolution = false
    /// requeued: the event's `spec` where it has one (a retry with changed provider options).
    public var takesSpec = false

    /// A transition to `state` that changes nothing else.
    public init(state: JobState) {
        self.state = state
    }

    /// The data key whose text an event of `type` gives the columns it names `.event`: the claimer of a claim, the
    /// error of a retry or failure, the reason of a deferral, rescue or cancel (as `ReplayEvent` decodes it).
    public static func textKey(of type: JobEventType) -> String? {
        switch type {
        case .claimed: "worker"
        case .retryScheduled, .failed: "error"
        case .deferred, .rescued, .cancelled: "reason"
        default: nil
        }
    }
}
