import Foundation

/// What a provider said when asked for a new access token (see `FerryStore.refreshAccessToken`).
public enum AccountTokenRefresh: Sendable {
    /// A new access token, valid until `expiresAt`.
    case granted(accessToken: String, expiresAt: Date)
    /// The refresh token was rejected for good (`invalid_grant`): the account needs re-authorization.
    case rejected(reason: String)
}
