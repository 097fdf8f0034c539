/// What a schedule's tick does while the run of its previous tick is still going (that tick's job, or any job of
/// its batch, queued or running).
public enum ScheduleOverlap: String, Sendable, Hashable, CaseIterable {
    /// Enqueue nothing for this tick; it is recorded as skipped for the job still going.
    case skip
    /// Enqueue the tick's job anyway: runs may overlap.
    case allow
}
