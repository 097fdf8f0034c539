/// Exponential backoff with full jitter, capped: `delay = uniform(0, min(cap, base · 2^(attempt-1)))`.
///
/// Full jitter spreads retries of many jobs that failed together (a provider outage) instead of stampeding.
public struct RetryPolicy: Sendable, Hashable {
    public var baseSeconds: Double
    public var capSeconds: Double
    /// Lower bound, so a retry never lands immediately on a struggling server.
    public var minimumSeconds: Double

    public init(baseSeconds: Double = 2, capSeconds: Double = 600, minimumSeconds: Double = 0.05) {
        self.baseSeconds = baseSeconds
        self.capSeconds = capSeconds
        self.minimumSeconds = minimumSeconds
    }

    /// The ceiling of the jitter window after `attempt` failed attempts (1-based).
    public func ceiling(afterAttempt attempt: Int) -> Double {
        let exponent = Double(max(0, min(attempt - 1, 60)))
        return min(capSeconds, baseSeconds * pow2(exponent))
    }

    /// The delay before the next attempt after `attempt` failed attempts.
    public func delay(afterAttempt attempt: Int, using generator: inout some RandomNumberGenerator) -> Double {
        let ceiling = ceiling(afterAttempt: attempt)
        return max(minimumSeconds, Double.random(in: 0...ceiling, using: &generator))
    }

    public func delay(afterAttempt attempt: Int) -> Double {
        var generator = SystemRandomNumberGenerator()
        return delay(afterAttempt: attempt, using: &generator)
    }

    private func pow2(_ exponent: Double) -> Double {
        var value = 1.0
        for _ in 0..<Int(exponent) { value *= 2 }
        return value
    }
}
