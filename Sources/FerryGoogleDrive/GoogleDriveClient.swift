import AsyncHTTPClient
import Logging

/// A Google Drive API v3 HTTP client: files (get, list, create folder, copy, delete), uploads (multipart and
/// resumable sessions, new revisions of a file), downloads and exports, and Google's OAuth 2 token endpoint.
///
/// Stateless apart from its configuration: every call takes the access token to use, so token storage and
/// refreshing stay with the caller. Calls throw ``GoogleDriveError`` only. It knows nothing of jobs or databases.
///
/// ```swift
/// let client = GoogleDriveClient(httpClient: .shared, endpoints: .single("http://127.0.0.1:8910"), logger: logger)
/// let grant = try await client.refreshAccessToken(refreshToken: refresh, clientID: id, clientSecret: secret)
/// let page = try await client.listFiles(query: GoogleDriveQuery.children(of: "root"), accessToken: grant.accessToken)
/// ```
public struct GoogleDriveClient: Sendable {
    let httpClient: HTTPClient
    /// Where requests go.
    public let endpoints: GoogleDriveEndpoints
    let logger: Logger
    /// Time allowed until the response head arrives (uploads included), and again for reading a JSON or error body.
    /// Download bodies are streamed by the caller and not limited here.
    public let requestTimeout: Duration

    /// Largest JSON answer read into memory (a 1,000-file listing is well under a megabyte).
    static let maxJSONBytes = 16 * 1024 * 1024
    /// Largest error body read; anything longer is cut.
    static let maxErrorBytes = 64 * 1024

    public init(httpClient: HTTPClient, endpoints: GoogleDriveEndpoints, logger: Logger, requestTimeout: Duration = .seconds(120)) {
        self.httpClient = httpClient
        self.endpoints = endpoints
        self.logger = logger
        self.requestTimeout = requestTimeout
    }
}
