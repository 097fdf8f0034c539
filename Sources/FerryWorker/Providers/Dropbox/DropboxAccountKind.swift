import AsyncHTTPClient
import FerryDropbox
import FerryStore
import Foundation
import Logging

/// Dropbox accounts: an app key (OAuth `client_id`), an optional app secret, and a refresh token from
/// `ferry account login` or `ferry account add`; access tokens are short-lived and renewed from the refresh token.
struct DropboxAccountKind: AccountKind {
    var addOptions: [String] {
        ["app-key", "app-secret-file", "refresh-token-file", "api-url", "content-url", "authorize-url"]
    }

    func prepare(
        _ inputs: AccountInputs, httpClient: HTTPClient, logger: Logger
    ) async throws(AccountSetupError) -> (FerryStore.NewAccount, note: String) {
        guard let appKey = inputs.appKey else {
            throw AccountSetupError(.usage, "--app-key is required for Dropbox (the app's OAuth client_id)")
        }
        var account = FerryStore.NewAccount(
            name: inputs.name, provider: inputs.provider, appKey: appKey, appSecret: inputs.secrets["app-secret"],
            refreshToken: inputs.secrets["refresh-token"], apiURL: inputs.apiURL, contentURL: inputs.contentURL,
            authorizeURL: inputs.authorizeURL, maxConcurrent: inputs.maxConcurrent)
        guard let refreshToken = account.refreshToken else {
            return (account, "added \(inputs.name) (dropbox); link it with: ferry account login \(inputs.name)")
        }
        guard inputs.verify else { return (account, "added \(inputs.name) (dropbox)") }
        let endpoints = DropboxEndpoints(
            api: inputs.apiURL ?? DropboxEndpoints.production.api,
            content: inputs.contentURL ?? DropboxEndpoints.production.content,
            authorize: inputs.authorizeURL ?? DropboxEndpoints.production.authorize)
        let client = DropboxClient(httpClient: httpClient, endpoints: endpoints, logger: logger)
        let grant: DropboxTokenGrant
        do {
            grant = try await client.refreshAccessToken(refreshToken: refreshToken, appKey: appKey, appSecret: account.appSecret)
        } catch {
            switch error.code {
            case .invalidGrant:
                throw AccountSetupError(.rejected, "the provider rejected the refresh token (invalid_grant): get a new one, or use ferry account login")
            case .invalidClient:
                throw AccountSetupError(.rejected, "the provider rejected the app key or secret (invalid_client): check --app-key and --app-secret-file")
            default:
                throw AccountSetupError(
                    error.isRetryable ? .unreachable : .rejected,
                    "could not check the refresh token with the provider (\(error)); retry, or add with --no-verify")
            }
        }
        account.accessToken = grant.accessToken
        account.accessTokenExpiresAt = Date().addingTimeInterval(grant.expiresIn ?? 14400)
        return (account, "added \(inputs.name) (dropbox), refresh token verified")
    }

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
