/// The first half of an interactive login: the URL a person opens, and what redeeming the code needs.
public struct AccountLoginStart: Sendable {
    public var url: String
    /// The PKCE code verifier; it stays in this process.
    public var codeVerifier: String

    public init(url: String, codeVerifier: String) {
        self.url = url
        self.codeVerifier = codeVerifier
    }
}
