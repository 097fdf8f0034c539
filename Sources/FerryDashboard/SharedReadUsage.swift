import Synchronization

/// What one page load took from `SharedReads`: the oldest kept value it used, and until when that value is kept.
///
/// Why: a live page refreshes when something changes, but a value read before the change and still within its
/// lifetime would show the page as it was. With nothing left to change, that stale page would stay. The page load
/// compares the oldest value it used with the last change the dashboard heard of, and tells the browser when to
/// look again (`X-Ferry-Refresh-After`): the database still does at most one read per lifetime, and the page
/// always ends up showing the last change.
final class SharedReadUsage: Sendable {
    struct Oldest: Sendable {
        /// When the read of the oldest value used began.
        var started: ContinuousClock.Instant
        /// When that value stops being served (a page load after it reads again).
        var keptUntil: ContinuousClock.Instant
    }

    private let oldestUsed = Mutex<Oldest?>(nil)

    /// The usage of the page load under way, if it records one.
    @TaskLocal static var current: SharedReadUsage?

    /// Notes a value used: its read began at `started` and it is kept until `keptUntil`.
    func used(started: ContinuousClock.Instant, keptUntil: ContinuousClock.Instant) {
        oldestUsed.withLock { oldest in
            if oldest == nil || started < oldest!.started { oldest = Oldest(started: started, keptUntil: keptUntil) }
        }
    }

    var oldest: Oldest? { oldestUsed.withLock { $0 } }

    /// How long until a page load would read again what this one used, when it used a value read before
    /// `lastChange` (so it may not show it); nil when everything it showed was read after the last change.
    func refreshAfter(lastChange: ContinuousClock.Instant?, now: ContinuousClock.Instant = .now) -> Duration? {
        guard let lastChange, let oldest, oldest.started < lastChange else { return nil }
        // A little past the end of the lifetime, so the next load finds the value expired; never a busy loop.
        return max(.milliseconds(100), oldest.keptUntil - now + .milliseconds(50))
    }
}
