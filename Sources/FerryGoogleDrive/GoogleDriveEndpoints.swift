import FerryHTTP

/// Where a ``GoogleDriveClient`` sends its requests. Per account, so a local server (such as `ferry dev-server`) can
/// stand in for Google.
public struct GoogleDriveEndpoints: Sendable, Hashable {
    /// Base of the Drive routes: `{api}/drive/v3/files…` and `{api}/upload/drive/v3/files…`.
    /// Default `https://www.googleapis.com`.
    public var api: String
    /// The OAuth token endpoint (the whole URL). Default `https://oauth2.googleapis.com/token`.
    public var token: String
    /// The page where a person allows the app (the whole URL). Default `https://accounts.google.com/o/oauth2/v2/auth`.
    public var authorize: String

    public init(api: String, token: String, authorize: String) {
        self.api = Self.trimmed(api)
        self.token = token
        self.authorize = authorize
    }

    /// Google's real hosts.
    public static let production = GoogleDriveEndpoints(
        api: "https://www.googleapis.com", token: "https://oauth2.googleapis.com/token",
        authorize: "https://accounts.google.com/o/oauth2/v2/auth")

    /// One server for everything (the dev server): `{base}/drive/v3/…`, `{base}/upload/drive/v3/…`, `{base}/token`,
    /// `{base}/o/oauth2/v2/auth`.
    public static func single(_ base: String) -> GoogleDriveEndpoints {
        let base = trimmed(base)
        return GoogleDriveEndpoints(api: base, token: base + "/token", authorize: base + "/o/oauth2/v2/auth")
    }

    /// `scheme://host[:port]` of the API base, lowercased: resumable session URIs must point there (the access token
    /// goes with them).
    var apiOrigin: String? { Self.origin(of: api) }

    /// `scheme://host[:port]` of a URL, lowercased; `nil` for anything but http(s) or a URL with user info.
    static func origin(of url: String) -> String? {
        URLOrigin.of(url)
    }

    private static func trimmed(_ url: String) -> String {
        var url = url
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }
}
