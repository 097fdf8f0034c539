import Synchronization

/// Draws fault decisions from a seeded PRNG under a lock, so a given seed and request order
/// always produce the same faults.
final class FaultInjector: Sendable {
    private struct State: Sendable {
        var configuration: FaultConfiguration
        var generator: SplitMix64
    }

    private let state: Mutex<State>

    init(_ configuration: FaultConfiguration) {
        state = Mutex(State(configuration: configuration, generator: SplitMix64(seed: configuration.seed)))
    }

    var configuration: FaultConfiguration { state.withLock { $0.configuration } }

    /// Replaces the settings and restarts the PRNG from the (new) seed.
    func update(_ configuration: FaultConfiguration) {
        state.withLock { $0 = State(configuration: configuration, generator: SplitMix64(seed: configuration.seed)) }
    }

    /// One draw per eligible request. The rates are consecutive bands of `[0, 1)`:
    /// failure, drop, rate limit, drop-after-apply, write contention (commit routes only).
    func decide(route: String, isCommit: Bool, isOAuth: Bool) -> FaultDecision {
        state.withLock { state in
            let config = state.configuration
            if isOAuth && !config.includeOAuth { return .none }
            if let routes = config.routes, !routes.contains(route) { return .none }
            let total = config.failureRate + config.dropRate + config.rateLimitRate + config.dropAfterApplyRate + config.writeContentionRate
            guard total > 0 else { return .none }
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
            if u < edge, isCommit { return .writeContention }
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
