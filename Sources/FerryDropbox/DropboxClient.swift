import FerryCore
import AsyncHTTPClient
import Logging
import NIOCore

/// A Dropbox API v2 HTTP client: RPC routes, content upload and download routes, and OAuth 2.
///
/// Stateless apart from its configuration: every call takes the access token to use, so token
/// storage and refreshing stay with the caller. Calls throw ``DropboxError`` only.
///
/// ```swift
/// let client = DropboxClient(httpClient: .shared, endpoints: .production, logger: logger)
/// let grant = try await client.refreshAccessToken(refreshToken: refresh, appKey: key, appSecret: nil)
/// let page = try await client.listFolder(path: "", recursive: true, limit: nil, accessToken: grant.accessToken)
/// ```
public struct DropboxClient: Sendable {
    let httpClient: HTTPClient
    /// Hosts this client talks to.
    public let endpoints: DropboxEndpoints
    let logger: Logger
    /// Time allowed until the response head arrives (uploads included), and again for reading
    /// a JSON or error body. Download bodies are streamed by the caller and not limited here.
    public let requestTimeout: Duration

    /// Largest JSON answer read into memory (a 2,000-entry listing is a few MB).
    static let maxJSONBytes = 64 * 1024 * 1024
    /// Largest error body read; anything longer is cut.
    static let maxErrorBytes = 1024 * 1024

    public init(httpClient: HTTPClient, endpoints: DropboxEndpoints, logger: Logger, requestTimeout: Duration = .seconds(120)) {
        self.httpClient = httpClient
        self.endpoints = endpoints
        self.logger = logger
        self.requestTimeout = requestTimeout
    }
}
