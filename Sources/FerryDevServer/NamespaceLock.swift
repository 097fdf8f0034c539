import Synchronization

/// Dropbox's per-namespace commit lock, emulated: each commit takes its account's lock for a fixed time, and a commit
/// that cannot get it within its patience is refused (the caller answers `too_many_write_operations`).
///
/// Time-based rather than held across the handler, so a handler that dies or is cancelled never leaves the lock taken.
final class NamespaceLock: Sendable {
    private let busyUntil = Mutex<[String: ContinuousClock.Instant]>([:])

    /// Takes `account`'s lock for `hold`, waiting up to `patience` while another commit has it. False when it stayed
    /// taken that long.
    func acquire(_ account: String, hold: Duration, patience: Duration) async throws -> Bool {
        let deadline = ContinuousClock.now + patience
        while true {
            let now = ContinuousClock.now
            let wait = busyUntil.withLock { busy -> Duration? in
                if let until = busy[account], until > now { return until - now }
                busy[account] = now + hold
                return nil
            }
            guard let wait else { return true }
            guard now < deadline else { return false }
            // Waiters wake when the lock frees and race for it, as concurrent commits do.
            try await Task.sleep(for: min(wait, deadline - now))
        }
    }
}
