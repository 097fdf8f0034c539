/// A queue, account ("" for none) and provider that finished jobs in the last week (`ferry.trend_keys`): what the
/// trends can be filtered by.
public struct TrendKey: Sendable, Hashable {
    public var queue: String
    public var account: String
    public var provider: String

    public init(queue: String, account: String, provider: String) {
        self.queue = queue
        self.account = account
        self.provider = provider
    }
}
