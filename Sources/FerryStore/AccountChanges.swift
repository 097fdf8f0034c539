/// What `ferry account update` changes: each field given replaces the account's; `nil` leaves it.
public struct AccountChanges: Sendable, Equatable {
    /// Jobs of the account running at once across the fleet (1-1000).
    public var maxConcurrent: Int?
    public var apiURL: String?
    public var contentURL: String?
    public var authorizeURL: String?
    /// Requests per second per worker process to this account; 0 removes the limit.
    public var tpsLimit: Double?

    public init(
        maxConcurrent: Int? = nil, apiURL: String? = nil, contentURL: String? = nil, authorizeURL: String? = nil,
        tpsLimit: Double? = nil
    ) {
        self.tpsLimit = tpsLimit
        self.maxConcurrent = maxConcurrent
        self.apiURL = apiURL
        self.contentURL = contentURL
        self.authorizeURL = authorizeURL
    }

    public var isEmpty: Bool { self == AccountChanges() }
}
