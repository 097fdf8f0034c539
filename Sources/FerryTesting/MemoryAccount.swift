/// An account as `MemoryWorkerStore` knows it: what claims (its cap), enqueue-from-SQL resolution (its provider)
/// and transfers (its limits) read.
public struct MemoryAccount: Sendable, Hashable {
    public var name: String
    public var provider: String
    /// Transfers of the account running at once across all workers (`ferry.accounts.max_concurrent`).
    public var maxConcurrent: Int
    /// `active`, `needs_reauth` or `revoked`: only active accounts' jobs are claimed.
    public var status: String
    /// Bytes per second for the whole fleet (`settings.bwlimit`), nil for none.
    public var bandwidthLimit: Int64?
    /// Requests per second for the whole fleet (`settings.tps_limit`), nil for none.
    public var requestLimit: Double?

    public init(
        name: String, provider: String = "dropbox", maxConcurrent: Int = 4, status: String = "active", bandwidthLimit: Int64? = nil,
        requestLimit: Double? = nil
    ) {
        self.name = name
        self.provider = provider
        self.maxConcurrent = maxConcurrent
        self.status = status
        self.bandwidthLimit = bandwidthLimit
        self.requestLimit = requestLimit
    }
}
