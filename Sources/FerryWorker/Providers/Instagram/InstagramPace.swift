import FerryInstagram
import Foundation
import Synchronization

/// Slows one process's calls to each Instagram account down as the service's usage headers climb, so the
/// account is paced before it is throttled: below ``easeFrom`` percent calls go at once; above it each call waits
/// longer, up to ``maxSpacing`` near the limit; at ``stopAt`` percent, or when the service says access is blocked
/// for a while, calls stop until ``pause`` (or the time it gave) has passed. Shared by every job of the process.
final class InstagramPace: Sendable {
    struct State: Sendable {
        var spacing: Duration = .zero
        var next: ContinuousClock.Instant
        var pausedUntil: ContinuousClock.Instant?
    }

    static let shared = InstagramPace()
    static let easeFrom = 75.0
    static let stopAt = 95.0
    static let maxSpacing: Duration = .seconds(4)
    static let pause: Duration = .seconds(60)

    private let accounts = Mutex<[String: State]>([:])

    /// Takes what an answer's headers said about `account`'s usage.
    func record(_ usage: InstagramUsage, account: String) {
        let now = ContinuousClock.now
        accounts.withLock { accounts in
            var state = accounts[account] ?? State(next: now)
            let eased = max(0, min(1, (usage.percent - Self.easeFrom) / (Self.stopAt - Self.easeFrom)))
            state.spacing = Self.maxSpacing * eased
            if usage.minutesToRegainAccess > 0 {
                state.pausedUntil = now + .seconds(usage.minutesToRegainAccess * 60)
            } else if usage.percent >= Self.stopAt {
                state.pausedUntil = now + Self.pause
            } else {
                state.pausedUntil = nil
            }
            accounts[account] = state
        }
    }

    /// How long the next call to `account` waits (zero when it may go now), taking its place in line. A paused
    /// account answers its remaining pause without taking a place: the caller defers the job instead of waiting.
    func delay(account: String) -> (wait: Duration, paused: Bool) {
        let now = ContinuousClock.now
        return accounts.withLock { accounts in
            guard var state = accounts[account] else { return (.zero, false) }
            if let until = state.pausedUntil, until > now { return (until - now, true) }
            let slot = max(now, state.next)
            state.next = slot + state.spacing
            accounts[account] = state
            return (slot - now, false)
        }
    }
}
