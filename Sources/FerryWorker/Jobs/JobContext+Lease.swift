/// The fence for effects: a handler asks right before each step it cannot take back.
extension JobContext {
    /// Throws ``LeaseLapsed`` unless this worker's claim of the job is safe from rescue for at least `margin` more
    /// (beyond the worker's own margin, see ``WorkerLease``): call it immediately before every irreversible step (a
    /// commit, a rename over the destination, a deletion), inside any retry loop, so each request is checked.
    ///
    /// - Parameter step: what would have been done, for the log (`committing`, `renaming into place`).
    public func ensureLease(before step: String, margin: Duration = .zero) throws {
        guard !holdsLease(margin: margin) else { return }
        throw LeaseLapsed(before: step)
    }

    /// Whether the claim is safe for at least `margin` more (for a step that serves several jobs at once, such as
    /// a batch commit, to leave out the entries whose lease lapsed).
    public func holdsLease(margin: Duration = .zero) -> Bool {
        guard let lease else { return true }
        return lease.lease.remaining(generation: lease.generation, extra: margin) != nil
    }
}
