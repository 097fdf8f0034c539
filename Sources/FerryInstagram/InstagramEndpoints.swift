/// Where an account's Instagram API lives: Meta's host, or one base URL (the dev server) set with `--api-url`.
public struct InstagramEndpoints: Sendable, Equatable {
    /// The Graph base URL (`https://graph.instagram.com`, optionally with a version path such as `/v21.0`).
    public var api: String

    public init(api: String) {
        self.api = api.hasSuffix("/") ? String(api.dropLast()) : api
    }

    /// The Instagram API with Instagram Login.
    public static let production = InstagramEndpoints(api: "https://graph.instagram.com")
}
