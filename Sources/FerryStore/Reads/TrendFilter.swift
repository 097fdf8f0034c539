/// Which finished jobs a trend counts: one queue, account ("" for jobs without one) or provider (a scheme such as
/// `s3`), each when given.
public struct TrendFilter: Sendable, Hashable {
    public var queue: String?
    public var account: String?
    public var provider: String?

    public init(queue: String? = nil, account: String? = nil, provider: String? = nil) {
        self.queue = queue
        self.account = account
        self.provider = provider
    }
}
