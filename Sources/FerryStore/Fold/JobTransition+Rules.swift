import FerryCore

extension JobTransition {
    /// Whether `apply_event` casts the event's `lease` for an event of `type` on a job in `state`: for a running
    /// job (is the claim current?) and for a claim. Elsewhere a lease that is not a number is never an error, so a
    /// caller casts it only when this says so and passes nil otherwise.
    public static func readsLease(_ type: JobEventType, from state: JobState) -> Bool {
        state == .running || (type == .claimed && state == .queued)
    }

    /// The transition an event of `type` makes from a job in `state` holding `lease`, or the refusal
    /// `ferry.apply_event` raises for it, with the same SQLSTATE. `eventLease` is the event's `lease`, cast where
    /// ``readsLease(_:from:)`` says (nil elsewhere).
    public static func of(
        _ type: JobEventType, from state: JobState, lease: Int64, cancelRequested: Bool, eventLease: Int64?
    ) throws(JobFoldError) -> JobTransition {
        // `state = 'running' AND lease IS NOT DISTINCT FROM j.lease`.
        let claimIsCurrent = state == .running && eventLease == lease
        if type.requiresLease && !claimIsCurrent {
            if state != .running {
                throw JobFoldError(.staleLease, "\(type.rawValue) is not allowed while the job is \(state.rawValue)")
            }
            let carried = eventLease.map { String($0) } ?? "none"
            throw JobFoldError(.staleLease, "\(type.rawValue) carries lease \(carried), but the current lease is \(lease)")
        }
        var transition: JobTransition
        switch type {
        case .enqueued:
            throw JobFoldError(.transitionNotAllowed, "job already exists")
        case .claimed:
            guard state == .queued else { throw JobFoldError(.transitionNotAllowed, "cannot be claimed while \(state.rawValue)") }
            guard eventLease == lease + 1 else { throw JobFoldError(.staleLease, "claim must carry lease \(lease + 1)") }
            transition = JobTransition(state: .running)
            transition.attempt = .next
            transition.claims = true
        case .progress, .retryScheduled, .deferred, .released, .rescued, .succeeded, .failed, .resolved:
            transition = attemptRule(type, from: state)
        case .cancelRequested, .cancelled, .discarded, .requeued:
            transition = try controlRule(type, from: state, claimIsCurrent: claimIsCurrent)
        }
        // A cancel requested while running wins at the next point the job would wait again.
        if transition.state == .queued && (transition.cancelRequested ?? cancelRequested) {
            transition.state = .cancelled
            transition.finishedAt = .now
        }
        return transition
    }

    /// The events a worker writes under its current lease (already checked): progress and outcomes.
    private static func attemptRule(_ type: JobEventType, from state: JobState) -> JobTransition {
        var transition = JobTransition(state: state)
        switch type {
        case .progress:
            transition.takesBytes = true
            transition.takesSession = true
        case .resolved:
            transition.takesResolution = true
        case .retryScheduled, .deferred, .rescued, .released:
            transition = JobTransition(state: .queued)
            transition.worker = .clear
            // Deferred (rate limited) and released (shutdown, lost reply) hand the attempt back.
            if type == .deferred || type == .released { transition.attempt = .giveBack }
            transition.runAt = type == .retryScheduled || type == .deferred ? .event : .now
            // The error (retry), or the reason (deferred, rescued); a release keeps the last error.
            if type != .released { transition.lastError = .event }
        case .succeeded:
            transition = JobTransition(state: .succeeded)
            transition.worker = .clear
            transition.finishedAt = .now
            // An earlier attempt's error stays in the history, not on a job that succeeded.
            transition.lastError = .clear
            transition.takesBytes = true
            transition.takesResult = true
        case .failed:
            transition = JobTransition(state: .failed)
            transition.worker = .clear
            transition.finishedAt = .now
            transition.lastError = .event
        default:
            break
        }
        return transition
    }

    /// The events that steer a job from outside its attempt: cancel, discard and retry.
    private static func controlRule(_ type: JobEventType, from state: JobState, claimIsCurrent: Bool) throws(JobFoldError) -> JobTransition {
        var transition = JobTransition(state: state)
        switch type {
        case .cancelRequested:
            guard state == .running else {
                throw JobFoldError(.transitionNotAllowed, "cancel can only be requested while running, not \(state.rawValue)")
            }
            transition.cancelRequested = true
        case .cancelled:
            if state == .running && !claimIsCurrent {
                throw JobFoldError(.staleLease, "cancelled carries a stale lease")
            } else if state != .queued && state != .running {
                throw JobFoldError(.transitionNotAllowed, "cannot be cancelled while \(state.rawValue)")
            }
            transition.state = .cancelled
            transition.worker = .clear
            transition.finishedAt = .now
            transition.lastError = .eventIfPresent
        case .discarded:
            guard state == .failed else {
                throw JobFoldError(.transitionNotAllowed, "only failed jobs can be discarded, this one is \(state.rawValue)")
            }
            transition.state = .discarded
        case .requeued:
            guard state == .failed || state == .cancelled || state == .discarded else {
                throw JobFoldError(
                    .transitionNotAllowed, "only failed, cancelled or discarded jobs can be retried, this one is \(state.rawValue)")
            }
            transition.state = .queued
            transition.attempt = .reset
            transition.runAt = .now
            transition.finishedAt = .clear
            transition.cancelRequested = false
            transition.takesSpec = true
        default:
            break
        }
        return transition
    }
}
