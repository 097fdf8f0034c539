import Synchronization

/// A worker process's bandwidth limit (`ferry worker --bwlimit`): one token bucket shared by all of the process's
/// transfers, uploads and downloads alike, so their bytes together stay under `bytesPerSecond`.
///
/// Each transfer spends before it moves a piece; a spend the bucket cannot cover is taken as debt and the
/// transfer sleeps until the debt is paid, so waiters are served in the order they asked and a large piece is
/// never starved by small ones. The bucket holds at most a tenth of a second of bytes: an idle process cannot
/// save up a burst that would break the limit over the next seconds.
public final class BandwidthLimit: Sendable {
    public let bytesPerSecond: Int64
    private let burst: Double
    private let state: Mutex<State>

    private struct State {
        var tokens: Double
        var refilled: ContinuousClock.Instant
    }

    public init(bytesPerSecond: Int64) {
        self.bytesPerSecond = max(1, bytesPerSecond)
        self.burst = max(1, Double(self.bytesPerSecond) / 10)
        self.state = Mutex(State(tokens: burst, refilled: .now))
    }

    /// Takes `bytes` from the bucket and waits until the bucket has paid for them. Throws `CancellationError`
    /// when the task is cancelled while waiting.
    public func spend(_ bytes: Int) async throws {
        guard bytes > 0 else { return }
        let rate = Double(bytesPerSecond)
        let wait = state.withLock { state -> Double in
            let now = ContinuousClock.now
            let elapsed = now - state.refilled
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            state.tokens = min(burst, state.tokens + seconds * rate)
            state.refilled = now
            state.tokens -= Double(bytes)
            return state.tokens < 0 ? -state.tokens / rate : 0
        }
        if wait > 0 { try await Task.sleep(for: .nanoseconds(Int64(wait * 1e9))) }
    }
}
