import FerryStore
import Synchronization

/// Each account's bandwidth limit in this process (`ferry account update NAME --bwlimit RATE`): one token bucket
/// per account shared by all of the process's transfers for it. Per process, like `--tps-limit`: N worker
/// processes move up to N times the limit together, so set it to the account's budget divided by the processes.
/// The limit is read from `ferry.accounts.settings` at most every 5 seconds, so an update reaches running workers
/// without a restart; a changed rate starts a new bucket.
final class AccountBandwidthLimits: Sendable {
    private struct Entry {
        var limit: BandwidthLimit?
        var readAt: ContinuousClock.Instant
    }

    private let store: any WorkerStore
    private let entries = Mutex<[String: Entry]>([:])
    private static let reread: Duration = .seconds(5)

    init(store: any WorkerStore) {
        self.store = store
    }

    /// The account's bucket now, or nil when it has no limit. A failed read keeps what was known.
    func limit(for account: String) async -> BandwidthLimit? {
        let now = ContinuousClock.now
        let known = entries.withLock { $0[account] }
        if let known, now - known.readAt < Self.reread { return known.limit }
        guard let rate = try? await store.accountBandwidthLimit(account) else {
            entries.withLock { $0[account] = Entry(limit: known?.limit, readAt: now) }
            return known?.limit
        }
        return entries.withLock { entries -> BandwidthLimit? in
            let current = entries[account]?.limit
            let limit = rate > 0 ? (current?.bytesPerSecond == rate ? current : BandwidthLimit(bytesPerSecond: rate)) : nil
            entries[account] = Entry(limit: limit, readAt: now)
            return limit
        }
    }
}
