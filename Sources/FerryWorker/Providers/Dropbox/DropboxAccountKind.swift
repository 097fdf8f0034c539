import AsyncHTTPClient
import FerryDropbox
import FerryStore
import Foundation
import Logging

/// Dropbox accounts: an app key (OAuth `client_id`), an optional app secret (its secrets: `{"app_secret"}`), and a
/// refresh token from `ferry account login` or `ferry account add`; access tokens are short-lived and renewed
/// from the refresh token.
struct DropboxAccountKind: AccountKind {
    static let appKey = AccountInput("app-key", .value(valueName: "key"), help: "The app key (OAuth client_id; not a secret). Required.")
    static let appSecret = AccountInput(
        "app-secret", .secretFile, help: "File holding the app secret (PKCE-only apps have none); - reads stdin.")
    static let refreshToken = AccountInput(
        "refresh-token", .secretFile, help: "File holding a refresh token; without one: ferry account login.")
    static let apiURL = AccountInput("api-url", .value(valueName: "url"), help: "API base URL. Default: \(DropboxEndpoints.production.api)")
    static let contentURL = AccountInput(
        "content-url", .value(valueName: "url"), help: "Content base URL. Default: \(DropboxEndpoints.production.content)")
    static let authorizeURL = AccountInput(
        "authorize-url", .value(valueName: "url"), help: "Authorize base URL. Default: \(DropboxEndpoints.production.authorize)")

    var inputs: [AccountInput] { [Self.appKey, Self.appSecret, Self.refreshToken, Self.apiURL, Self.contentURL, Self.authorizeURL] }
    var revocation: (any AccountRevocation)? { DropboxRevocation() }
    var login: (any AccountLoginFlow)? { DropboxLoginFlow() }

    func prepare(
        _ inputs: AccountInputs, httpClient: HTTPClient, logger: Logger
    ) async throws(AccountSetupError) -> (NewAccount, note: String) {
        guard let appKey = inputs[Self.appKey] else {
            throw AccountSetupError(.usage, "\(Self.appKey.flag) is required for Dropbox (the app's OAuth client_id)")
        }
        let app = try Self.app(appKey: appKey, inputs)
        var account = NewAccount(
            name: inputs.name, provider: inputs.provider, appKey: appKey, secrets: Self.secrets(appSecret: app.appSecret),
            refreshToken: inputs[Self.refreshToken], apiURL: app.apiURL, contentURL: app.contentURL,
            authorizeURL: app.authorizeURL, maxConcurrent: inputs.maxConcurrent)
        let client = DropboxLoginFlow.client(app, httpClient: httpClient, logger: logger)
        let note = try await account.checkRefreshToken(provider: "dropbox", verify: inputs.verify, defaultLifetime: 14400) {
            (refreshToken: String) async throws(AccountSetupError) -> (accessToken: String, expiresIn: Double?) in
            do throws(DropboxError) {
                let grant = try await client.refreshAccessToken(refreshToken: refreshToken, appKey: appKey, appSecret: app.appSecret)
                return (grant.accessToken, grant.expiresIn)
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
        }
        return (account, note)
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
            grant = try await client.refreshAccessToken(refreshToken: refreshToken, appKey: appKey, appSecret: credentials.dropboxAppSecret)
        } catch {
            guard error.code == .invalidGrant || error.code == .invalidClient else { throw error }
            logger.warning("refresh token rejected; account needs re-authorization", metadata: ["account": "\(credentials.name)"])
            return .rejected(reason: error.code == .invalidGrant ? "refresh token rejected (invalid_grant)" : "app key or secret rejected (invalid_client)")
        }
        logger.info("access token refreshed", metadata: ["account": "\(credentials.name)", "expires_in_s": "\(Int(grant.expiresIn ?? 14400))"])
        return .granted(accessToken: grant.accessToken, expiresAt: Date().addingTimeInterval(grant.expiresIn ?? 14400))
    }

    /// The secrets a Dropbox account stores: its app secret, when the app has one (PKCE-only apps do not).
    static func secrets(appSecret: String?) -> [String: String] {
        appSecret.map { ["app_secret": $0] } ?? [:]
    }

    /// Before schema 30 the one secret was the app secret.
    func secrets(fromLegacy secret: String) -> [String: String]? { Self.secrets(appSecret: secret) }

    /// The app and hosts from what `add` or `login` was given.
    static func app(appKey: String, _ inputs: AccountInputs) throws(AccountSetupError) -> AccountApp {
        AccountApp(
            appKey: appKey, appSecret: inputs[appSecret], apiURL: try inputs.url(apiURL), contentURL: try inputs.url(contentURL),
            authorizeURL: try inputs.url(authorizeURL))
    }
}
