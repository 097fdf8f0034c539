import FerryHTTP
import FerryStore
import Foundation
import Logging

/// What the shared refresh step needs to know of a token endpoint's refusal.
protocol OAuthGrantFailure: Error {
    /// `invalid_grant`: the refresh token was revoked, expired or never valid.
    var rejectsGrant: Bool { get }
    /// `invalid_client`: the client id or secret is wrong.
    var rejectsClient: Bool { get }
}

/// Refreshing an OAuth account's access token with its stored refresh token, the same for every provider whose token
/// endpoint speaks RFC 6749: a refused grant or client makes the account need a login (its jobs held); any other
/// failure is thrown for the caller to retry; a refresh token sent back replaces the stored one.
enum OAuthRefresh {
    /// Asks `endpoint` with the stored client id and refresh token; `defaultLifetime` when the answer has no
    /// `expires_in`.
    static func refresh<Failure: OAuthGrantFailure>(
        _ credentials: AccountCredentials, logger: Logger, defaultLifetime: Double = 3599,
        endpoint: (_ clientID: String, _ refreshToken: String) async throws(Failure) -> OAuthTokenGrant
    ) async throws -> AccountTokenRefresh {
        guard let clientID = credentials.appKey, let refreshToken = credentials.refreshToken else {
            return .rejected(reason: "no refresh token or client id stored")
        }
        let grant: OAuthTokenGrant
        do {
            grant = try await endpoint(clientID, refreshToken)
        } catch {
            guard error.rejectsGrant || error.rejectsClient else { throw error }
            logger.warning("refresh token rejected; account needs re-authorization", metadata: ["account": "\(credentials.name)"])
            return .rejected(reason: error.rejectsGrant ? "refresh token rejected (invalid_grant)" : "client id or secret rejected (invalid_client)")
        }
        let lifetime = grant.expiresIn ?? defaultLifetime
        logger.info("access token refreshed", metadata: ["account": "\(credentials.name)", "expires_in_s": "\(Int(lifetime))"])
        return .granted(accessToken: grant.accessToken, expiresAt: Date().addingTimeInterval(lifetime), refreshToken: grant.refreshToken)
    }
}
