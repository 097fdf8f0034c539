/// Counters of the Instagram emulation (`GET /__dev/instagram/stats`).
struct InstagramStats: Codable, Sendable {
    var apiCalls = 0
    var refreshes = 0
    var rejectedTokens = 0
    var rateLimited = 0
    /// Downloads served per CDN path (`/ig-cdn/ID.jpg`).
    var downloadsPerPath: [String: Int] = [:]
    /// Links refused because they expired.
    var expiredLinks = 0
    /// Items read again by id (`GET /{id}`).
    var itemReads = 0
    /// API calls per token, keyed by its first 8 characters (enough to tell tokens apart, not to use one).
    var callsPerTokenPrefix: [String: Int] = [:]

    enum CodingKeys: String, CodingKey {
        case apiCalls = "api_calls", refreshes, rejectedTokens = "rejected_tokens", rateLimited = "rate_limited"
        case downloadsPerPath = "downloads_per_path", expiredLinks = "expired_links", itemReads = "item_reads"
        case callsPerTokenPrefix = "calls_per_token_prefix"
    }
}
