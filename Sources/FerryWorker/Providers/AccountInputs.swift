import FerryCore

/// What `ferry account add` was given, secrets already read from their files or standard input.
public struct AccountInputs: Sendable {
    public var name: String
    public var provider: String
    public var appKey: String?
    public var apiURL: String?
    public var contentURL: String?
    public var authorizeURL: String?
    public var region: String?
    public var endpointURL: String?
    public var pathStyle: Bool
    public var maxConcurrent: Int?
    /// Secrets by the name of the flag that gave them, without `--` and `-file` (`refresh-token`, `api-key` …).
    public var secrets: [String: String]
    /// Check the credentials with the provider now.
    public var verify: Bool

    public init(
        name: String, provider: String, appKey: String? = nil, apiURL: String? = nil, contentURL: String? = nil,
        authorizeURL: String? = nil, region: String? = nil, endpointURL: String? = nil, pathStyle: Bool = false,
        maxConcurrent: Int? = nil, secrets: [String: String] = [:], verify: Bool = true
    ) {
        self.name = name
        self.provider = provider
        self.appKey = appKey
        self.apiURL = apiURL
        self.contentURL = contentURL
        self.authorizeURL = authorizeURL
        self.region = region
        self.endpointURL = endpointURL
        self.pathStyle = pathStyle
        self.maxConcurrent = maxConcurrent
        self.secrets = secrets
        self.verify = verify
    }
}
