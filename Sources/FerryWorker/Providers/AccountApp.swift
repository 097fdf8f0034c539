/// The registered app and hosts an OAuth account is linked through: from `ferry account login`'s flags for a
/// new account, from the stored account otherwise.
public struct AccountApp: Sendable {
    /// The app's OAuth `client_id` (not a secret).
    public var appKey: String
    /// The app secret, for apps that have one (PKCE-only apps do not).
    public var appSecret: String?
    /// Base URLs replacing the provider's hosts (a dev server), `nil` for the provider's own.
    public var apiURL: String?
    public var contentURL: String?
    public var authorizeURL: String?

    public init(appKey: String, appSecret: String?, apiURL: String?, contentURL: String?, authorizeURL: String?) {
        self.appKey = appKey
        self.appSecret = appSecret
        self.apiURL = apiURL
        self.contentURL = contentURL
        self.authorizeURL = authorizeURL
    }
}
