/// Counters of a running ``DevServer``, also served as JSON at `GET /__dev/stats`
/// (snake_case keys). Tests assert on these to see what really reached the server.
public struct DevServerStats: Sendable, Codable, Equatable {
    /// Requests per route (e.g. `files/upload`, `oauth2/token`; the stand-in routes count as
    /// `web`, `flickr/photos` and `flickr/rest`), counted before faults apply.
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
    /// Commits of one file each that reached the commit step: `files/upload` and `upload_session/finish`.
    public var singleCommits: Int = 0
    /// Entries of every `finish_batch_v2` (and `finish_batch`) call that reached the commit step, in arrival order.
    public var finishBatchEntries: [Int] = []
    /// Commits answered 429 `too_many_write_operations` because the account's namespace lock stayed taken
    /// (see ``FaultConfiguration/namespaceLockMilliseconds``).
    public var namespaceLockContention: Int = 0
    /// Most appends to concurrent upload sessions in flight at once (bodies being received), over the run.
    public var concurrentAppendsPeak: Int = 0
    /// Appends to concurrent upload sessions in flight now.
    public var concurrentAppendsInFlight: Int = 0
    /// Most upload bodies (`files/upload`, `upload_session/start`, `append_v2`) being received at once, over the run:
    /// the concurrent transfers an account cap should bound.
    public var uploadBodiesPeak: Int = 0
    /// Upload bodies being received now.
    public var uploadBodiesInFlight: Int = 0
    /// Commits per `path_lower` that wrote a new revision.
    public var commitsPerPath: [String: Int] = [:]
    /// Body bytes received by content routes.
    public var bytesReceived: Int64 = 0
    /// File bytes sent by `files/download`.
    public var bytesSent: Int64 = 0
    /// Flickr REST calls per `method` parameter (unknown methods too; `""` when missing).
    public var flickrCallsPerMethod: [String: Int] = [:]
    /// `page` of every `flickr.people.getPublicPhotos` answered, in order.
    public var flickrPagesListed: [Int] = []
    /// Flickr photo downloads answered with a body (200 or 206), per URL path
    /// (`/flickr/photos/65535/1234_abcd_z.jpg`).
    public var flickrPhotoDownloadsPerPath: [String: Int] = [:]
    /// Photo bytes sent by `/flickr/photos/`.
    public var flickrBytesSent: Int64 = 0
    /// `GET` and `HEAD` requests per `/web/` URL path (`/web/a/b.jpg`), whatever the answer.
    public var webRequestsPerPath: [String: Int] = [:]
    /// Start offset of every `/web/` `GET` answered with a body, in arrival order: 0 for a
    /// full response, the range start for a 206. Shows exactly where clients resumed.
    public var webRangeStartsPerPath: [String: [Int64]] = [:]
    /// File bytes sent by `/web/`.
    public var webBytesSent: Int64 = 0

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
        case singleCommits = "single_commits"
        case concurrentAppendsPeak = "concurrent_appends_peak"
        case concurrentAppendsInFlight = "concurrent_appends_in_flight"
        case finishBatchEntries = "finish_batch_entries"
        case uploadBodiesPeak = "upload_bodies_peak"
        case uploadBodiesInFlight = "upload_bodies_in_flight"
        case namespaceLockContention = "namespace_lock_contention"
        case bytesReceived = "bytes_received"
        case bytesSent = "bytes_sent"
        case flickrCallsPerMethod = "flickr_calls_per_method"
        case flickrPagesListed = "flickr_pages_listed"
        case flickrPhotoDownloadsPerPath = "flickr_photo_downloads_per_path"
        case flickrBytesSent = "flickr_bytes_sent"
        case webRequestsPerPath = "web_requests_per_path"
        case webRangeStartsPerPath = "web_range_starts_per_path"
        case webBytesSent = "web_bytes_sent"
    }

    /// Missing keys keep their defaults, so statistics written by an older server still decode.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        requestsPerRoute = try c.decodeIfPresent([String: Int].self, forKey: .requestsPerRoute) ?? [:]
        responsesPerStatus = try c.decodeIfPresent([String: Int].self, forKey: .responsesPerStatus) ?? [:]
        tokenRefreshesPerAccount = try c.decodeIfPresent([String: Int].self, forKey: .tokenRefreshesPerAccount) ?? [:]
        accessTokensIssued = try c.decodeIfPresent(Int.self, forKey: .accessTokensIssued) ?? 0
        bytesReceivedPerSession = try c.decodeIfPresent([String: Int64].self, forKey: .bytesReceivedPerSession) ?? [:]
        appendOffsetsPerSession = try c.decodeIfPresent([String: [Int64]].self, forKey: .appendOffsetsPerSession) ?? [:]
        faultsInjected = try c.decodeIfPresent([String: Int].self, forKey: .faultsInjected) ?? [:]
        rateLimitedResponses = try c.decodeIfPresent(Int.self, forKey: .rateLimitedResponses) ?? 0
        sessionsStarted = try c.decodeIfPresent(Int.self, forKey: .sessionsStarted) ?? 0
        filesCommitted = try c.decodeIfPresent(Int.self, forKey: .filesCommitted) ?? 0
        commitsPerPath = try c.decodeIfPresent([String: Int].self, forKey: .commitsPerPath) ?? [:]
        singleCommits = try c.decodeIfPresent(Int.self, forKey: .singleCommits) ?? 0
        concurrentAppendsPeak = try c.decodeIfPresent(Int.self, forKey: .concurrentAppendsPeak) ?? 0
        concurrentAppendsInFlight = try c.decodeIfPresent(Int.self, forKey: .concurrentAppendsInFlight) ?? 0
        finishBatchEntries = try c.decodeIfPresent([Int].self, forKey: .finishBatchEntries) ?? []
        uploadBodiesPeak = try c.decodeIfPresent(Int.self, forKey: .uploadBodiesPeak) ?? 0
        uploadBodiesInFlight = try c.decodeIfPresent(Int.self, forKey: .uploadBodiesInFlight) ?? 0
        namespaceLockContention = try c.decodeIfPresent(Int.self, forKey: .namespaceLockContention) ?? 0
        bytesReceived = try c.decodeIfPresent(Int64.self, forKey: .bytesReceived) ?? 0
        bytesSent = try c.decodeIfPresent(Int64.self, forKey: .bytesSent) ?? 0
        flickrCallsPerMethod = try c.decodeIfPresent([String: Int].self, forKey: .flickrCallsPerMethod) ?? [:]
        flickrPagesListed = try c.decodeIfPresent([Int].self, forKey: .flickrPagesListed) ?? []
        flickrPhotoDownloadsPerPath = try c.decodeIfPresent([String: Int].self, forKey: .flickrPhotoDownloadsPerPath) ?? [:]
        flickrBytesSent = try c.decodeIfPresent(Int64.self, forKey: .flickrBytesSent) ?? 0
        webRequestsPerPath = try c.decodeIfPresent([String: Int].self, forKey: .webRequestsPerPath) ?? [:]
        webRangeStartsPerPath = try c.decodeIfPresent([String: [Int64]].self, forKey: .webRangeStartsPerPath) ?? [:]
        webBytesSent = try c.decodeIfPresent(Int64.self, forKey: .webBytesSent) ?? 0
    }
}
