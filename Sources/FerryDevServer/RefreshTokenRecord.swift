/// A long-lived refresh token.
struct RefreshTokenRecord: Sendable {
    var account: String
    /// Issued through PKCE without a secret, so refreshing needs only `client_id` (Dropbox's rule
    /// for public clients).
    var publicClient: Bool
}
