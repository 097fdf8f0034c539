/// What one transfer spends its bytes from: the process's limit (`ferry worker --bwlimit`) and its account's
/// (`ferry account update NAME --bwlimit`). A piece waits for both, so neither limit is exceeded.
public struct BandwidthBudget: Sendable {
    let process: BandwidthLimit?
    let account: String?
    let accounts: AccountBandwidthLimits?

    init(process: BandwidthLimit?, account: String?, accounts: AccountBandwidthLimits?) {
        self.process = process
        self.account = account
        self.accounts = accounts
    }

    /// A budget for a transfer with these limits, or nil when there is none to respect (the fast paths stay fast).
    static func make(process: BandwidthLimit?, account: String?, accounts: AccountBandwidthLimits?) -> BandwidthBudget? {
        guard process != nil || (account != nil && accounts != nil) else { return nil }
        return BandwidthBudget(process: process, account: account, accounts: accounts)
    }

    /// Waits until both limits allow `bytes` more. Throws `CancellationError` when cancelled while waiting.
    public func spend(_ bytes: Int) async throws {
        try await process?.spend(bytes)
        if let account, let limit = await accounts?.limit(for: account) {
            try await limit.spend(bytes)
        }
    }
}
