/// A worker process's share of an account's budget across the fleet (`WorkerStore.leaseAccountShare`): the
/// account's limits as set (`ferry account update NAME --tps-limit/--bwlimit`) and the fraction of them this
/// process may use until it renews.
public struct AccountShareLease: Sendable, Hashable {
    /// The account's requests per second for the whole fleet, or nil for none.
    public var requestsPerSecond: Double?
    /// The account's bytes per second for the whole fleet, or nil for none.
    public var bytesPerSecond: Int64?
    /// This process's demand over the total demand of every live lease of the account (0 < fraction ≤ 1); 1 for an
    /// account without limits.
    public var fraction: Double
    /// Live leases of the account, this one included (0 for an account without limits: nothing was leased).
    public var holders: Int

    public init(requestsPerSecond: Double?, bytesPerSecond: Int64?, fraction: Double, holders: Int) {
        self.requestsPerSecond = requestsPerSecond
        self.bytesPerSecond = bytesPerSecond
        self.fraction = fraction
        self.holders = holders
    }

    /// Whether the account has a limit to share.
    public var isLimited: Bool { requestsPerSecond != nil || bytesPerSecond != nil }

    /// This process's requests per second, or nil for no limit.
    public var processRequestsPerSecond: Double? { requestsPerSecond.map { $0 * fraction } }

    /// This process's bytes per second (at least 1), or nil for no limit.
    public var processBytesPerSecond: Int64? { bytesPerSecond.map { max(1, Int64((Double($0) * fraction).rounded())) } }
}
