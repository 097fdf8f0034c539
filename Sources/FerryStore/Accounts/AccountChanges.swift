/// What `ferry account update` changes: each field given replaces the account's; `nil` leaves it.
public struct AccountChanges: Sendable, Equatable {
    /// Transfers of the account running at once across the fleet (1-1000).
    public var maxConcurrent: Int?
    public var apiURL: String?
    public var contentURL: String?
    public var authorizeURL: String?
    /// Requests per second to this account, for the whole fleet; 0 removes the limit.
    public var tpsLimit: Double?
    /// Bytes per second moved for this account's transfers, for the whole fleet; 0 removes the limit.
    public var bandwidthLimit: Int64?
    /// An S3-compatible store's endpoint (`settings.endpoint_url`, as `account add --endpoint-url` sets it).
    public var endpointURL: String?

    public init(
        maxConcurrent: Int? = nil, apiURL: String? = nil, contentURL: String? = nil, authorizeURL: String? = nil,
        tpsLimit: Double? = nil, bandwidthLimit: Int64? = nil, endpointURL: String? = nil
    ) {
        self.endpointURL = endpointURL
        self.bandwidthLimit = bandwidthLimit
        self.tpsLimit = tpsLimit
        self.maxConcurrent = maxConcurrent
        self.apiURL = apiURL
        self.contentURL = contentURL
        self.authorizeURL = authorizeURL
    }

    public var isEmpty: Bool { self == AccountChanges() }
}
