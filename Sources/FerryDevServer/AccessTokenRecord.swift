/// A short-lived `sl.` access token.
struct AccessTokenRecord: Sendable {
    var account: String
    /// The refresh token it was minted from; revoking either revokes the whole family.
    var refreshToken: String?
    /// Seconds since 1970.
    var expiresAt: Double
}
