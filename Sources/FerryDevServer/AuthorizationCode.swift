/// A pending code from `/oauth2/authorize`, redeemable once at `/oauth2/token`.
struct AuthorizationCode: Sendable {
    var account: String
    var codeChallenge: String?
    /// `S256` or `plain`.
    var challengeMethod: String
    var redirectURI: String?
    /// `token_access_type=offline`: the exchange also returns a refresh token.
    var offline: Bool
    /// Seconds since 1970.
    var expiresAt: Double
}
