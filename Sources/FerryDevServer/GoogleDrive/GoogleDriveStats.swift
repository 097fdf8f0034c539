/// Counters of the Drive emulation (also at `GET /__dev/gdrive/stats`, snake_case keys): what really reached the
/// server, for tests to assert on.
public struct GoogleDriveStats: Sendable, Codable, Equatable {
    /// Files created with content (multipart, media, resumable, copies), per name.
    public var filesCreatedPerName: [String: Int] = [:]
    /// Folders created, per name.
    public var foldersCreatedPerName: [String: Int] = [:]
    /// New revisions stored of existing files (same id).
    public var revisionsWritten: Int = 0
    public var multipartUploads: Int = 0
    public var sessionsStarted: Int = 0
    /// Sessions that finished with every byte stored.
    public var sessionsCompleted: Int = 0
    /// Sessions made to expire (by age or through the control route).
    public var sessionsExpired: Int = 0
    /// Start offsets of the chunks each session received, in arrival order (by upload id).
    public var chunkStartsPerSession: [String: [Int64]] = [:]
    /// Body bytes each session received, including bytes later dropped.
    public var bytesReceivedPerSession: [String: Int64] = [:]
    /// `Content-Range: bytes */N` status queries answered.
    public var statusQueries: Int = 0
    /// `files.list` pages answered.
    public var listPages: Int = 0
    public var downloads: Int = 0
    public var exports: Int = 0
    public var copies: Int = 0
    public var deletes: Int = 0
    /// Upload body bytes received (all upload types).
    public var bytesReceived: Int64 = 0
    /// File bytes sent by downloads and exports.
    public var bytesSent: Int64 = 0

    public init() {}

    enum CodingKeys: String, CodingKey {
        case filesCreatedPerName = "files_created_per_name"
        case foldersCreatedPerName = "folders_created_per_name"
        case revisionsWritten = "revisions_written"
        case multipartUploads = "multipart_uploads"
        case sessionsStarted = "sessions_started"
        case sessionsCompleted = "sessions_completed"
        case sessionsExpired = "sessions_expired"
        case chunkStartsPerSession = "chunk_starts_per_session"
        case bytesReceivedPerSession = "bytes_received_per_session"
        case statusQueries = "status_queries"
        case listPages = "list_pages"
        case downloads, exports, copies, deletes
        case bytesReceived = "bytes_received"
        case bytesSent = "bytes_sent"
    }
}
