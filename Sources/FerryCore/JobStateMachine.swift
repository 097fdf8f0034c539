/// Which events a job accepts in each state, and where they lead.
///
/// This is the grammar of a job's life. The database's `ferry.apply_event` enforces the same rules when events
/// are appended (a test checks every pair against it); this copy lets the CLI explain a refusal before writing.
public enum JobStateMachine {
    /// The state after `event` is applied in `state`, or `nil` when the event is not allowed there.
    ///
    /// `cancelRequested` tells whether a cancel is pending: a job that would wait again is cancelled instead.
    public static func next(
        from state: JobState?, on event: JobEventType, cancelRequested: Bool = false
    ) -> JobState? {
        guard let state else { return event == .enqueued ? .queued : nil }
        let target: JobState?
        switch (state, event) {
        case (_, .enqueued): target = nil
        case (.queued, .claimed): target = .running
        case (.running, .progress): target = .running
        case (.running, .cancelRequested): target = .running
        case (.running, .retryScheduled), (.running, .deferred), (.running, .released), (.running, .rescued):
            target = .queued
        case (.queued, .cancelled), (.running, .cancelled): target = .cancelled
        case (.running, .succeeded): target = .succeeded
        case (.running, .failed): target = .failed
        case (.failed, .requeued), (.cancelled, .requeued): return .queued
        default: target = nil
        }
        if target == .queued && (cancelRequested || event == .cancelRequested) { return .cancelled }
        return target
    }
}
