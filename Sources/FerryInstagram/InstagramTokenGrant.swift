/// A refreshed long-lived token (`{access_token, token_type, expires_in}`).
public struct InstagramTokenGrant: Sendable {
    public var accessToken: String
    /// Seconds the token lives (about 60 days).
    public var expiresIn: Double?

    public init(accessToken: String, expiresIn: Double?) {
        self.accessToken = accessToken
        self.expiresIn = expiresIn
    }
}
