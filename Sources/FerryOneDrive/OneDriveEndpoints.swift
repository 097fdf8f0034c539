import FerryHTTP

/// Where a ``OneDriveClient`` sends its requests. Per account, so a local server (such as `ferry dev-server`) can
/// stand in for Microsoft.
public struct OneDriveEndpoints: Sendable, Hashable {
    /// Base of the Graph routes, with the version: `{graph}/me/drive/root:/path:/content`. Default
    /// `https://graph.microsoft.com/v1.0`.
    public var graph: String
    /// The identity platform with its tenant (`common`, `consumers`, `organizations` or a tenant id): the token
    /// endpoint is `{login}/oauth2/v2.0/token`, the authorize page `{login}/oauth2/v2.0/authorize`. Default
    /// `https://login.microsoftonline.com/common`.
    public var login: String

    public init(graph: String, login: String) {
        self.graph = Self.trimmed(graph)
        self.login = Self.trimmed(login)
    }

    /// Microsoft's real hosts (the `common` tenant: personal and work accounts).
    public static let production = OneDriveEndpoints(graph: "https://graph.microsoft.com/v1.0", login: "https://login.microsoftonline.com/common")

    /// One server for everything (the dev server): `{base}/v1.0/…`, `{base}/common/oauth2/v2.0/token`.
    public static func single(_ base: String, tenant: String = "common") -> OneDriveEndpoints {
        let base = trimmed(base)
        return OneDriveEndpoints(graph: base + "/v1.0", login: base + "/" + tenant)
    }

    /// The whole token endpoint URL.
    public var token: String { login + "/oauth2/v2.0/token" }
    /// The whole authorize page URL.
    public var authorize: String { login + "/oauth2/v2.0/authorize" }

    /// `scheme://host[:port]` of a URL, lowercased; `nil` for anything but http(s) or a URL with user info.
    public static func origin(of url: String) -> String? {
        URLOrigin.of(url)
    }

    public static func trimmedURL(_ url: String) -> String { trimmed(url) }

    static func trimmed(_ url: String) -> String {
        var url = url
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }
}
