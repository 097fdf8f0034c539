import FerryStore
import Synchronization

/// Each account's bandwidth limit as this process's share of it (`ferry account update NAME --bwlimit RATE` is one
/// budget for the whole fleet, see ``AccountShares``): one token bucket per account shared by all of the process's
/// transfers for it, whose rate follows the share as it is renewed.
final class AccountBandwidthLimits: Sendable {
    private let shares: AccountShares
    private let buckets = Mutex<[String: BandwidthLimit]>([:])

    init(shares: AccountShares) {
        self.shares = shares
    }

    /// The account's bucket now, or nil when it has no limit.
    func limit(for account: String) async -> BandwidthLimit? {
        guard let rate = await shares.current(account)?.processBytesPerSecond else {
            buckets.withLock { $0[account] = nil }
            return nil
        }
        return buckets.withLock { buckets -> BandwidthLimit in
            if let bucket = buckets[account] {
                bucket.setRate(rate)
                return bucket
            }
            let bucket = BandwidthLimit(bytesPerSecond: rate)
            buckets[account] = bucket
            return bucket
        }
    }
}
