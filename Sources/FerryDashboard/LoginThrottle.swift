import Synchronization

/// Caps wrong dashboard tokens (login form and bearer alike) per source: a client address, and a browser (its
/// login cookie) when it sends one. After `limit` failures within `window`, that source's wrong tokens get 429 until
/// the window that began with the first of them has passed.
///
/// The right token is always accepted, throttled or not: wrong tokens from anywhere (behind a reverse proxy every
/// client shares the proxy's address) can never lock the operator out. What makes guessing hopeless is the token's
/// length; the throttle keeps a guessing source loud and cheap to spot.
final class LoginThrottle: Sendable {
    let limit: Int
    let window: Duration
    /// Sources remembered at most, so rotating cookies cannot grow memory without bound.
    static let maxSources = 10_000

    private struct Bucket {
        var start: ContinuousClock.Instant
        var failures: Int
    }

    private let buckets = Mutex<[String: Bucket]>([:])

    init(limit: Int = 10, window: Duration = .seconds(60)) {
        self.limit = limit
        self.window = window
    }

    /// Seconds until `sources` may try wrong tokens again (the longest wait of any of them), or `nil` when none
    /// is over its budget.
    func retryAfter(_ sources: [String], now: ContinuousClock.Instant = .now) -> Int? {
        buckets.withLock { buckets in
            var longest: Duration?
            for source in sources {
                guard let bucket = buckets[source] else { continue }
                let age = now - bucket.start
                if age >= window {
                    buckets[source] = nil
                    continue
                }
                guard bucket.failures >= limit else { continue }
                longest = max(longest ?? .zero, window - age)
            }
            return longest.map { max(1, Int($0.components.seconds) + ($0.components.attoseconds > 0 ? 1 : 0)) }
        }
    }

    /// Counts one wrong token against every source it came from.
    func recordFailure(_ sources: [String], now: ContinuousClock.Instant = .now) {
        buckets.withLock { buckets in
            for source in sources {
                if let bucket = buckets[source], now - bucket.start < window {
                    buckets[source]!.failures += 1
                } else {
                    buckets[source] = Bucket(start: now, failures: 1)
                }
            }
            if buckets.count > Self.maxSources {
                // Expired buckets first; if every one is live, the oldest go (their sources start afresh).
                buckets = buckets.filter { now - $0.value.start < window }
                if buckets.count > Self.maxSources {
                    let oldest = buckets.sorted { $0.value.start < $1.value.start }.prefix(buckets.count - Self.maxSources)
                    for (source, _) in oldest { buckets[source] = nil }
                }
            }
        }
    }
}
