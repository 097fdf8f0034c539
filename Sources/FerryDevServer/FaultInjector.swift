import FerryCore
import Synchronization

/// Draws fault decisions from a seeded PRNG under a lock, so a given seed and request order
/// always produce the same faults; also keeps the per-second request budget.
final class FaultInjector: Sendable {
    /// Which route-specific faults a route can get besides the common ones.
    enum RouteKind: Sendable {
        /// Commits a file: write contention in either form.
        case commit
        /// Appends to an upload session: a partially kept chunk.
        case append
        case other
    }

    private struct State: Sendable {
        var configuration: FaultConfiguration
        var generator: SplitMix64
        /// Requests the budget still allows; refilled at `requestsPerSecond`, at most one second's worth.
        var budget: Double
        var budgetRefilled: ContinuousClock.Instant

        init(_ configuration: FaultConfiguration) {
            self.configuration = configuration
            generator = SplitMix64(seed: configuration.seed)
            budget = Double(configuration.requestsPerSecond)
            budgetRefilled = .now
        }
    }

    private let state: Mutex<State>

    init(_ configuration: FaultConfiguration) {
        state = Mutex(State(configuration))
    }

    var configuration: FaultConfiguration { state.withLock { $0.configuration } }

    /// Replaces the settings, restarts the PRNG from the (new) seed and fills the budget.
    func update(_ configuration: FaultConfiguration) {
        state.withLock { $0 = State(configuration) }
    }

    /// One decision per eligible request. The budget comes first (a spent budget draws nothing, so
    /// it never shifts the seeded faults); then one draw, whose rates are consecutive bands of `[0, 1)`:
    /// failure, drop, rate limit, drop-after-apply, write contention and its 429 form (commit routes
    /// only), partial chunk (append routes only), corrupt commit (commit routes only).
    func decide(route: String, kind: RouteKind, isOAuth: Bool) -> FaultDecision {
        state.withLock { state in
            let config = state.configuration
            if isOAuth && !config.includeOAuth { return .none }
            if let routes = config.routes, !routes.contains(route) { return .none }
            if config.requestsPerSecond > 0 {
                let rate = Double(config.requestsPerSecond)
                let now = ContinuousClock.now
                let elapsed = now - state.budgetRefilled
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                state.budget = min(rate, state.budget + seconds * rate)
                state.budgetRefilled = now
                guard state.budget >= 1 else {
                    // Whole seconds, as Retry-After has them: when the next request fits again.
                    return .overBudget(retryAfter: max(1, Int(((1 - state.budget) / rate).rounded(.up))))
                }
                state.budget -= 1
            }
            let bands = [config.failureRate, config.dropRate, config.rateLimitRate, config.dropAfterApplyRate,
                         config.writeContentionRate, config.writeRateLimitRate, config.partialChunkRate,
                         config.corruptCommitRate]
            guard bands.reduce(0, +) > 0 else { return .none }
            let u = state.generator.nextUnit()
            var edge = config.failureRate
            // Half the failures are 500s and half 503s, decided by the same draw.
            if u < edge { return u < config.failureRate / 2 ? .failure(500) : .failure(503) }
            edge += config.dropRate
            if u < edge { return .drop }
            edge += config.rateLimitRate
            if u < edge { return .rateLimit(retryAfter: config.retryAfterSeconds) }
            edge += config.dropAfterApplyRate
            if u < edge { return .dropAfterApply }
            edge += config.writeContentionRate
            if u < edge { return kind == .commit ? .writeContention : .none }
            edge += config.writeRateLimitRate
            if u < edge { return kind == .commit ? .writeRateLimit(retryAfter: config.retryAfterSeconds) : .none }
            edge += config.partialChunkRate
            if u < edge { return kind == .append ? .partialChunk : .none }
            edge += config.corruptCommitRate
            if u < edge { return kind == .commit ? .corruptCommit : .none }
            return .none
        }
    }

    /// Extra draw for each entry of `finish_batch_v2`, whose entries fail independently.
    func decideBatchEntryContention(route: String) -> Bool {
        state.withLock { state in
            guard state.configuration.writeContentionRate > 0 else { return false }
            if let routes = state.configuration.routes, !routes.contains(route) { return false }
            return state.generator.nextUnit() < state.configuration.writeContentionRate
        }
    }

    var latencyMilliseconds: Int { state.withLock { $0.configuration.latencyMilliseconds } }
}
