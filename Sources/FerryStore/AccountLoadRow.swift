/// One account's load for metrics (`WorkerStore.accountLoad()`): its transfers running against its cap, and
/// whether it holds its jobs until someone logs in again.
public struct AccountLoadRow: Sendable, Hashable {
    public var account: String
    public var provider: String
    /// Running jobs that still move bytes: what `max_concurrent` caps (`ferry.account_transfers`).
    public var transfers: Int64
    public var maxConcurrent: Int64
    /// The account is not active (`needs_reauth`, `revoked`): its queued jobs are held.
    public var needsLogin: Bool

    public init(account: String, provider: String, transfers: Int64, maxConcurrent: Int64, needsLogin: Bool) {
        self.account = account
        self.provider = provider
        self.transfers = transfers
        self.maxConcurrent = maxConcurrent
        self.needsLogin = needsLogin
    }
}
