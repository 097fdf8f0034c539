/// Counters of a running ``DevServer``, also served as JSON at `GET /__dev/stats`
/// (snake_case keys). Tests assert on these to see what really reached the server.
public struct DevServerStats: Sendable, Codable, Equatable {
    /// Requests per route (e.g. `files/upload`, `oauth2/token`), counted before faults apply.
    public var requestsPerRoute: [String: Int] = [:]
    /// Responses per HTTP status code (as a string), for answered requests.
    public var responsesPerStatus: [String: Int] = [:]
    /// Successful `grant_type=refresh_token` exchanges per account.
    public var tokenRefreshesPerAccount: [String: Int] = [:]
    /// Access tokens minted (refreshes, code exchanges and seeding helpers).
    public var accessTokensIssued: Int = 0
    /// Request-body bytes read per upload session (start, append, finish), including
    /// chunks that were later refused or cut off.
    public var bytesReceivedPerSession: [String: Int64] = [:]
    /// Offsets at which each `append_v2` call for a session started, in arrival order.
    public var appendOffsetsPerSession: [String: [Int64]] = [:]
    /// Faults injected per kind: `failure`, `drop`, `drop_after_apply`, `rate_limit`, `write_contention`.
    public var faultsInjected: [String: Int] = [:]
    /// 429 responses sent.
    public var rateLimitedResponses: Int = 0
    /// Upload sessions started.
    public var sessionsStarted: Int = 0
    /// Files written (a commit of identical content that wrote nothing is not counted).
    public var filesCommitted: Int = 0
    /// Commits per `path_lower` that wrote a new revision.
    public var commitsPerPath: [String: Int] = [:]
    /// Body bytes received by content routes.
    public var bytesReceived: Int64 = 0
    /// File bytes sent by downloads.
    public var bytesSent: Int64 = 0

    public init() {}

    enum CodingKeys: String, CodingKey {
        case requestsPerRoute = "requests_per_route"
        case responsesPerStatus = "responses_per_status"
        case tokenRefreshesPerAccount = "token_refreshes_per_account"
        case accessTokensIssued = "access_tokens_issued"
        case bytesReceivedPerSession = "bytes_received_per_session"
        case appendOffsetsPerSession = "append_offsets_per_session"
        case faultsInjected = "faults_injected"
        case rateLimitedResponses = "rate_limited_responses"
        case sessionsStarted = "sessions_started"
        case filesCommitted = "files_committed"
        case commitsPerPath = "commits_per_path"
        case bytesReceived = "bytes_received"
        case bytesSent = "bytes_sent"
    }
}
