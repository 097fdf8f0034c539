/// The first half of an interactive login: the URL a person opens, and what redeeming the code needs.
public struct AccountLoginStart: Sendable {
    public var url: String
    /// The PKCE code verifier; it stays in this process.
    public var codeVerifier: String
    /// The loopback port the provider sends the browser back to (`http://127.0.0.1:PORT/?code=…`), when the flow
    /// redirects there: `ferry account login` listens on it and takes the code from the redirect itself (a pasted
    /// code or address still works). `nil`: the person pastes the code.
    public var loopbackPort: Int?
    /// The `redirect_uri` the authorize URL named, which redeeming the code must name again.
    public var redirectURI: String?

    public init(url: String, codeVerifier: String, loopbackPort: Int? = nil, redirectURI: String? = nil) {
        self.url = url
        self.codeVerifier = codeVerifier
        self.loopbackPort = loopbackPort
        self.redirectURI = redirectURI
    }
}
