import FerryStore
import Synchronization

/// This process's shares of its accounts' budgets (`ferry account update NAME --tps-limit N --bwlimit RATE`), which
/// hold for the whole fleet: every process using a limited account leases a share of it from the store for
/// ``lease``, weighted by its demand (the jobs it runs on the account at once, at its peak since the last renewal),
/// and renews it every ``renewEvery`` while it uses the account. The database sees one write per process and account
/// per renewal, never one per request; a process that stops (or dies) stops renewing, and its share goes to the
/// others when its lease lapses.
///
/// Why not per process: with an autoscaler changing the number of processes, a per-process limit makes the
/// account's real rate wrong in both directions.
public final class AccountShares: Sendable {
    /// How often a used account's lease is renewed (and the shares rebalanced by demand).
    public static let renewEvery: Duration = .seconds(1)
    /// How long a lease lasts unrenewed: a dead process's share is free again after this.
    public static let lease: Duration = .seconds(3)
    /// How often an account without limits is looked at again (an `account update` reaches running workers).
    static let unlimitedReread: Duration = .seconds(5)

    private struct Entry {
        var lease: AccountShareLease?
        var readAt: ContinuousClock.Instant?
        var renewing = false
        /// This process's jobs on the account now, and the most at once since the last renewal.
        var running = 0
        var peak = 0
    }

    private let store: any WorkerStore
    private let worker: String
    private let entries = Mutex<[String: Entry]>([:])

    /// - Parameter worker: this process's name, unique in the fleet (its lease rows are keyed by it).
    public init(store: any WorkerStore, worker: String) {
        self.store = store
        self.worker = worker
    }

    /// A job of this process starts using `account`: it counts in the process's demand until ``end(_:)``.
    public func begin(_ account: String) {
        entries.withLock { entries in
            var entry = entries[account] ?? Entry()
            entry.running += 1
            entry.peak = max(entry.peak, entry.running)
            entries[account] = entry
        }
    }

    /// A job that called ``begin(_:)`` ended.
    public func end(_ account: String) {
        entries.withLock { entries in
            guard var entry = entries[account] else { return }
            entry.running = max(0, entry.running - 1)
            entries[account] = entry
        }
    }

    /// The account's lease as this process holds it now, renewed first when it is due. Nil when the store has never
    /// answered for it: the caller then goes unlimited rather than stopping work. A failed renewal keeps the last
    /// lease.
    public func current(_ account: String) async -> AccountShareLease? {
        let now = ContinuousClock.now
        enum Step { case use(AccountShareLease?), renew(demand: Int) }
        let step = entries.withLock { entries -> Step in
            var entry = entries[account] ?? Entry()
            defer { entries[account] = entry }
            // Until a first lease is known every caller asks (none goes unlimited while the first read runs);
            // after that one renewal at a time, the others using the last lease.
            if let readAt = entry.readAt, let lease = entry.lease {
                let every = lease.isLimited ? Self.renewEvery : Self.unlimitedReread
                if now - readAt < every || entry.renewing { return .use(lease) }
            }
            entry.renewing = true
            let demand = max(entry.peak, entry.running, 1)
            entry.peak = entry.running
            return .renew(demand: demand)
        }
        guard case .renew(let demand) = step else {
            if case .use(let lease) = step { return lease }
            return nil
        }
        let renewed = try? await store.leaseAccountShare(account, worker: worker, demand: Double(demand), lease: Self.lease)
        return entries.withLock { entries -> AccountShareLease? in
            var entry = entries[account] ?? Entry()
            defer { entries[account] = entry }
            entry.renewing = false
            if let renewed {
                entry.lease = renewed
                entry.readAt = now
            } else if entry.lease != nil {
                // Keep what was known; look again at the next use after a renewal period.
                entry.readAt = now
            }
            return entry.lease
        }
    }
}
