import AsyncHTTPClient
import FerryDropbox
import FerryStore
import Foundation
import Logging

/// Dropbox accounts: an app key (OAuth `client_id`), an optional app secret, and a refresh token from
/// `ferry account login` or `ferry account add`; access tokens are short-lived and renewed from the refresh token.
struct DropboxAccountKind: AccountKind {
    func refreshAccess(
        _ credentials: AccountCredentials, httpClient: HTTPClient, logger: Logger
    ) async throws -> AccountTokenRefresh {
        guard let appKey = credentials.appKey, let refreshToken = credentials.refreshToken else {
            return .rejected(reason: "no refresh token or app key stored")
        }
        let client = DropboxClient(httpClient: httpClient, endpoints: credentials.dropboxEndpoints, logger: logger)
        let grant: DropboxTokenGrant
        do {
            grant = try await client.refreshAccessToken(refreshToken: refreshToken, appKey: appKey, appSecret: credentials.appSecret)
        } catch {
            guard error.code == .invalidGrant || error.code == .invalidClient else { throw error }
            logger.warning("refresh token rejected; account needs re-authorization", metadata: ["account": "\(credentials.name)"])
            return .rejected(reason: error.code == .invalidGrant ? "refresh token rejected (invalid_grant)" : "app key or secret rejected (invalid_client)")
        }
        logger.info("access token refreshed", metadata: ["account": "\(credentials.name)", "expires_in_s": "\(Int(grant.expiresIn ?? 14400))"])
        return .granted(accessToken: grant.accessToken, expiresAt: Date().addingTimeInterval(grant.expiresIn ?? 14400))
    }
}
