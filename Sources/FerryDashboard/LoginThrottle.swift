import Synchronization

/// Caps wrong dashboard tokens (login form and bearer alike): after `limit` failures within `window`, every
/// attempt is refused (429) until the window that began with the first of them has passed, so a token cannot be
/// guessed at network speed. One budget for the whole dashboard: behind a reverse proxy every client has the
/// proxy's address, so a per-address budget would be no budget.
final class LoginThrottle: Sendable {
    let limit: Int
    let window: Duration
    private let state = Mutex<(start: ContinuousClock.Instant, failures: Int)>((.now, 0))

    init(limit: Int = 10, window: Duration = .seconds(60)) {
        self.limit = limit
        self.window = window
    }

    /// Seconds until attempts are accepted again, or `nil` when one may be tried now.
    func retryAfter(now: ContinuousClock.Instant = .now) -> Int? {
        state.withLock { state in
            if now - state.start >= window { state = (now, 0) }
            guard state.failures >= limit else { return nil }
            let left = window - (now - state.start)
            return max(1, Int(left.components.seconds) + (left.components.attoseconds > 0 ? 1 : 0))
        }
    }

    func recordFailure(now: ContinuousClock.Instant = .now) {
        state.withLock { state in
            if now - state.start >= window { state = (now, 0) }
            state.failures += 1
        }
    }
}
