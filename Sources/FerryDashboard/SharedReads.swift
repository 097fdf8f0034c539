import Foundation
import Synchronization

/// The aggregate reads every viewer shares (queue and batch summaries, throughput, workers, accounts), each run
/// once at a time (concurrent page loads wait for the read under way instead of starting their own) and kept for
/// `maxAge`, or for `costFactor` times what the read took when that is longer: however many viewers, the
/// dashboard spends at most 1/`costFactor` of the database's time on each shared read. A page is at most that old;
/// a live page refreshes once a second; the dashboard's own actions clear the cache, so what they changed shows
/// at once.
///
/// Why: twenty page loads a second, each with its own reads, take the database the workers need. Batch summaries
/// and throughput come from counters (migration 0023), but queue_stats still counts the jobs scheduled for later,
/// and a read kept for a second serves every viewer of that second.
final class SharedReads: Sendable {
    private struct Entry: Sendable {
        var task: Task<any Sendable, any Error>
        var started: ContinuousClock.Instant
        /// How long the read took, once it finished.
        var cost: Duration?

        func isFresh(at now: ContinuousClock.Instant, maxAge: Duration, costFactor: Int) -> Bool {
            now - started < max(maxAge, (cost ?? .zero) * costFactor)
        }
    }

    let maxAge: Duration
    let costFactor: Int
    private let entries = Mutex<[String: Entry]>([:])
    /// Entries kept at most (batch pages are keyed by name), so distinct keys cannot grow memory without bound.
    static let maxEntries = 256

    init(maxAge: Duration = .seconds(1), costFactor: Int = 20) {
        self.maxAge = maxAge
        self.costFactor = costFactor
    }

    /// The value under `key`: a fresh one, the one being read, or a new read by `load`.
    func value<T: Sendable>(_ key: String, _ load: @escaping @Sendable () async throws -> T) async throws -> T {
        let now = ContinuousClock.now
        let (task, started) = entries.withLock { entries -> (Task<any Sendable, any Error>, ContinuousClock.Instant) in
            if let entry = entries[key], entry.isFresh(at: now, maxAge: maxAge, costFactor: costFactor) {
                return (entry.task, entry.started)
            }
            if entries.count >= Self.maxEntries { entries.removeAll(keepingCapacity: true) }
            let task = Task<any Sendable, any Error> { try await load() }
            entries[key] = Entry(task: task, started: now)
            return (task, now)
        }
        do {
            let result = try await task.value
            let took = ContinuousClock.now - now
            let cost = entries.withLock { entries -> Duration? in
                guard entries[key]?.started == started else { return nil }
                if started == now, entries[key]?.cost == nil { entries[key]?.cost = took }
                return entries[key]?.cost
            }
            // The page load learns how old what it shows is (a value no longer kept is kept for no time).
            SharedReadUsage.current?.used(started: started, keptUntil: started + max(maxAge, (cost ?? .zero) * costFactor))
            guard let value = result as? T else { throw SharedReadsError.typeMismatch(key) }
            return value
        } catch {
            // A failed read is not kept: the next page load tries again.
            entries.withLock { entries in
                if let entry = entries[key], entry.started == now { entries[key] = nil }
            }
            throw error
        }
    }

    /// Forgets every value (after an action changed the queue).
    func clear() {
        entries.withLock { $0.removeAll(keepingCapacity: true) }
    }
}

enum SharedReadsError: Error, CustomStringConvertible {
    case typeMismatch(String)

    var description: String {
        switch self {
        case .typeMismatch(let key): "shared read \(key) answered a value of another type"
        }
    }
}
