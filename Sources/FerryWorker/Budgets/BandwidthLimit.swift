import Synchronization

/// A worker process's bandwidth limit (`ferry worker --bwlimit`): one token bucket shared by all of the process's
/// transfers, uploads and downloads alike, so their bytes together stay under `bytesPerSecond`.
///
/// Each transfer spends before it moves a piece; a spend the bucket cannot cover is taken as debt and the
/// transfer sleeps until the debt is paid, so waiters are served in the order they asked and a large piece is
/// never starved by small ones. The bucket holds at most a tenth of a second of bytes: an idle process cannot
/// save up a burst that would break the limit over the next seconds.
public final class BandwidthLimit: Sendable {
    private let state: Mutex<State>

    private struct State {
        var rate: Int64
        var tokens: Double
        var refilled: ContinuousClock.Instant

        var burst: Double { max(1, Double(rate) / 10) }

        /// Adds what the time since the last refill earned, up to the burst.
        mutating func refill(at now: ContinuousClock.Instant) {
            let elapsed = now - refilled
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            tokens = min(burst, tokens + seconds * Double(rate))
            refilled = now
        }
    }

    public init(bytesPerSecond: Int64) {
        let rate = max(1, bytesPerSecond)
        self.state = Mutex(State(rate: rate, tokens: max(1, Double(rate) / 10), refilled: .now))
    }

    /// The rate now.
    public var bytesPerSecond: Int64 { state.withLock { $0.rate } }

    /// Changes the rate from now on, keeping the bucket's debt (a share of a fleet budget changes as processes
    /// come and go; a new bucket would hand out a fresh burst each time).
    public func setRate(_ bytesPerSecond: Int64) {
        state.withLock { state in
            let rate = max(1, bytesPerSecond)
            guard rate != state.rate else { return }
            state.refill(at: .now)
            state.rate = rate
            state.tokens = min(state.burst, state.tokens)
        }
    }

    /// Takes `bytes` from the bucket and waits until the bucket has paid for them. Throws `CancellationError`
    /// when the task is cancelled while waiting.
    public func spend(_ bytes: Int) async throws {
        guard bytes > 0 else { return }
        let wait = state.withLock { state -> Double in
            state.refill(at: .now)
            state.tokens -= Double(bytes)
            return state.tokens < 0 ? -state.tokens / Double(state.rate) : 0
        }
        if wait > 0 { try await Task.sleep(for: .nanoseconds(Int64(wait * 1e9))) }
    }
}
