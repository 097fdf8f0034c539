/// Settings of a ``DevServer``.
public struct DevServerConfiguration: Sendable {
    /// Interface to bind.
    public var host: String = "127.0.0.1"
    /// Port to bind; 0 picks a free port (see ``DevServer/waitUntilRunning()``).
    public var port: Int = 0
    /// Files are stored on disk under here, one folder per account; server state
    /// (tokens, upload sessions) lives in its `.devserver` sub-folder.
    public var storageDirectory: String
    /// `client_id` accepted by `/oauth2/token` and `/oauth2/authorize`.
    public var appKey: String
    /// The app's secret, as every Dropbox app has one. Token requests of a confidential client must carry it
    /// (form `client_secret` or HTTP Basic) and a wrong one is always refused; only PKCE code exchanges and the
    /// refresh tokens they produced go without. ``defaultAppSecret`` unless configured.
    public var appSecret: String
    /// PEM certificate chain and private key: when both are set the server speaks HTTPS only (the official
    /// SDKs refuse plain HTTP).
    public var tlsCertificateFile: String?
    public var tlsKeyFile: String?
    /// Lifetime of issued access tokens, in seconds (Dropbox uses 14400).
    public var accessTokenLifetime: Double = 14400
    /// The time tokens and authorization codes expire by (tests advance it instead of sleeping).
    public var clock = DevServerClock()
    /// Seeded fault injection.
    public var faults: FaultConfiguration = .none
    /// Account used by `/oauth2/authorize` when the request has no `account` query parameter.
    public var defaultAccount: String = "dev"
    /// Largest body accepted by one content request (Dropbox: 150 MiB).
    public var maxRequestBodyBytes: Int64 = 150 * 1024 * 1024
    /// Page size of `list_folder` when the request gives no `limit`.
    public var defaultListFolderLimit: Int = 2000
    /// `api_key` accepted by the Flickr stand-in at `/services/rest/`.
    public var flickrAPIKey: String = "ferry-dev-flickr"
    /// Further accepted Flickr API keys (e.g. the other lines of `--flickr-api-key-file`).
    public var additionalFlickrAPIKeys: [String] = []

    /// The app secret of a server configured without one (`ferry dev-server` without `--app-secret-file`).
    public static let defaultAppSecret = "ferry-dev-secret"

    /// Every accepted Flickr API key.
    var acceptedFlickrAPIKeys: Set<String> { Set([flickrAPIKey] + additionalFlickrAPIKeys) }

    /// Creates a configuration; only the storage directory and app key have no default (`appSecret: nil` means
    /// ``defaultAppSecret``).
    public init(
        host: String = "127.0.0.1",
        port: Int = 0,
        storageDirectory: String,
        appKey: String,
        appSecret: String? = nil,
        accessTokenLifetime: Double = 14400,
        faults: FaultConfiguration = .none
    ) {
        self.host = host
        self.port = port
        self.storageDirectory = storageDirectory
        self.appKey = appKey
        self.appSecret = appSecret ?? Self.defaultAppSecret
        self.accessTokenLifetime = accessTokenLifetime
        self.faults = faults
    }
}
