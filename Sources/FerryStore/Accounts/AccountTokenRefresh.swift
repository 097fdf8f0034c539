import Foundation

/// What a provider said when asked for a new access token (see `FerryStore.refreshAccessToken`).
public enum AccountTokenRefresh: Sendable {
    /// A new access token, valid until `expiresAt`. `refreshToken` is a new refresh token when the provider rotates
    /// them (Microsoft sends one with every grant, and the first one lapses 90 days after it was issued however
    /// often it is used): it replaces the stored one, sealed, in the same transaction as the access token.
    case granted(accessToken: String, expiresAt: Date, refreshToken: String? = nil)
    /// The refresh token was rejected for good (`invalid_grant`): the account needs re-authorization.
    case rejected(reason: String)
}
