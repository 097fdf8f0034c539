import Synchronization

/// How long this worker's claims are safe from rescue, as the worker itself can know it: the fence for effects
/// (a commit, a rename over a destination, a deletion), as the lease in every event is the fence for records.
///
/// Another worker rescues our jobs once the heartbeat the database stored is older than `rescueAfter` on the
/// database's clock. That stored time is never earlier than when we *sent* the heartbeat, so a heartbeat sent at
/// `sent` (on this process's monotonic clock) keeps our claims ours until at least `sent + rescueAfter`, whatever
/// the offset between the clocks. The deadline stops short of that by `margin`: room for the request the check
/// guards (a commit takes time to land) and for the two clocks' rates to differ. A failed heartbeat never moves
/// it; a heartbeat answered only after the deadline passed, or answered "you were declared dead" (``revoke()``),
/// ends every claim held so far for good: a rescue may have handed them to another worker meanwhile.
final class WorkerLease: Sendable {
    /// The staleness after which a heartbeat's worker is rescued (`--rescue-after`; the fleet's must agree).
    let rescueAfter: Duration
    /// How far before `sent + rescueAfter` the lease counts as lapsed.
    let margin: Duration

    private struct State {
        /// When the claims of the current generation stop being safe; nil before the first registration.
        var deadline: ContinuousClock.Instant?
        /// Bumped when the database declared this worker dead: claims made before belong to others now.
        var generation = 0
    }

    private let state = Mutex(State())

    init(rescueAfter: Duration, margin: Duration? = nil) {
        self.rescueAfter = rescueAfter
        self.margin = margin ?? Self.defaultMargin(rescueAfter: rescueAfter)
    }

    /// max(5 s, rescueAfter / 6), but at most a third of `rescueAfter`, so that a short `--rescue-after` (tests,
    /// small fleets) still leaves most of it usable: 5 s of the default 15 s.
    static func defaultMargin(rescueAfter: Duration) -> Duration {
        min(max(.seconds(5), rescueAfter / 6), rescueAfter / 3)
    }

    /// The generation claims made now belong to.
    var generation: Int { state.withLock { $0.generation } }

    /// When the current generation's claims stop being safe (nil before the first registration).
    var deadline: ContinuousClock.Instant? { state.withLock { $0.deadline } }

    /// A heartbeat or registration sent at `sent` was stored, its answer arriving at `answered`: claims are safe
    /// until `sent + rescueAfter - margin`. Never moves the deadline back.
    ///
    /// An answer that arrives after the deadline it would extend comes after a gap in which a rescue may have
    /// happened (a rescue does not remove the worker's row, so the heartbeat still says "alive"): the claims held
    /// so far stay fenced for good (a new generation), and only claims made from now on get the new deadline.
    /// Returns whether that happened.
    @discardableResult
    func renewed(sentAt sent: ContinuousClock.Instant, answeredAt answered: ContinuousClock.Instant = .now) -> Bool {
        let candidate = sent + rescueAfter - margin
        return state.withLock { state -> Bool in
            let gap = state.deadline.map { answered >= $0 } ?? false
            if gap { state.generation += 1 }
            state.deadline = max(gap ? candidate : (state.deadline ?? candidate), candidate)
            return gap
        }
    }

    /// The database no longer knows this worker (its registration was removed as dead): every claim made so far
    /// was, or will be, rescued. Claims of later generations start with the next registration's renewal.
    func revoke() {
        state.withLock { state in
            state.generation += 1
            state.deadline = nil
        }
    }

    /// How long claims of `generation` stay safe from `now`, less `extra`; nil when they are not safe any more.
    func remaining(generation: Int, extra: Duration = .zero, now: ContinuousClock.Instant = .now) -> Duration? {
        state.withLock { state -> Duration? in
            guard state.generation == generation, let deadline = state.deadline, now + extra < deadline else { return nil }
            return deadline - now - extra
        }
    }
}
