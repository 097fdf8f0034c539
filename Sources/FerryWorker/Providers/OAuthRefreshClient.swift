import FerryHTTP

/// A provider client that trades a refresh token for an access token (OAuth 2's refresh grant), failing with its
/// own error type.
protocol OAuthRefreshClient {
    associatedtype Failure: Error
    func refreshAccessToken(refreshToken: String, clientID: String, clientSecret: String?) async throws(Failure) -> OAuthTokenGrant
}
