import Crypto
import Synchronization

/// The logged-in browsers, held server-side: a session lives until log-out, `idleTimeout` without use, or
/// `lifetime` after log-in, whichever comes first.
final class SessionStore: Sendable {
    /// Sessions kept at most (least recently used dropped first), so logins cannot grow memory without bound.
    static let maxSessions = 1000

    let idleTimeout: Duration
    let lifetime: Duration

    private struct Entry {
        var created: ContinuousClock.Instant
        var lastSeen: ContinuousClock.Instant
    }

    /// Keyed by the SHA-256 of the session id, so a lookup's timing says nothing about the ids themselves.
    private let entries = Mutex<[String: Entry]>([:])

    init(idleTimeout: Duration, lifetime: Duration) {
        self.idleTimeout = idleTimeout
        self.lifetime = lifetime
    }

    /// A new session; its id goes into the session cookie and nowhere else.
    func create(now: ContinuousClock.Instant = .now) -> String {
        let id = ConstantTime.randomToken()
        entries.withLock { entries in
            entries = entries.filter { isLive($0.value, now: now) }
            if entries.count >= Self.maxSessions {
                let oldest = entries.sorted { $0.value.lastSeen < $1.value.lastSeen }.prefix(entries.count - Self.maxSessions + 1)
                for (key, _) in oldest { entries[key] = nil }
            }
            entries[Self.key(id)] = Entry(created: now, lastSeen: now)
        }
        return id
    }

    /// The first of `candidates` that is a live session (a browser may send several cookies of one name, for
    /// example one a neighbour set with a narrower path). Expired ones are forgotten on the way. With `touch`, the
    /// session's idle time starts again.
    func live(_ candidates: [String], touch: Bool, now: ContinuousClock.Instant = .now) -> String? {
        entries.withLock { entries in
            for candidate in candidates where candidate.count == 64 {
                let key = Self.key(candidate)
                guard let entry = entries[key] else { continue }
                guard isLive(entry, now: now) else {
                    entries[key] = nil
                    continue
                }
                if touch { entries[key]!.lastSeen = now }
                return candidate
            }
            return nil
        }
    }

    /// Ends a session (log-out).
    func remove(_ id: String) {
        _ = entries.withLock { $0.removeValue(forKey: Self.key(id)) }
    }

    private func isLive(_ entry: Entry, now: ContinuousClock.Instant) -> Bool {
        now - entry.created < lifetime && now - entry.lastSeen < idleTimeout
    }

    private static func key(_ id: String) -> String {
        SHA256.hash(data: Array(id.utf8)).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
