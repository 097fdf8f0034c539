import FerryCore
/// Base URLs of the three Dropbox hosts. Per account, so a local server (such as `ferry dev-server`) can stand in.
public struct DropboxEndpoints: Sendable, Hashable {
    /// RPC host (`/2/...` JSON routes and `/oauth2/token`). Default `https://api.dropboxapi.com`.
    public var api: String
    /// Content host (uploads, downloads, thumbnails). Default `https://content.dropboxapi.com`.
    public var content: String
    /// Where a person authorizes the app (`/oauth2/authorize`). Default `https://www.dropbox.com`.
    public var authorize: String

    public init(api: String, content: String, authorize: String) {
        self.api = Self.trimmed(api)
        self.content = Self.trimmed(content)
        self.authorize = Self.trimmed(authorize)
    }

    /// Dropbox's real hosts.
    public static let production = DropboxEndpoints(
        api: "https://api.dropboxapi.com", content: "https://content.dropboxapi.com", authorize: "https://www.dropbox.com")

    /// One server for all three (the dev server serves every route on one port).
    public static func single(_ base: String) -> DropboxEndpoints {
        DropboxEndpoints(api: base, content: base, authorize: base)
    }

    private static func trimmed(_ url: String) -> String {
        var url = url
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }
}
