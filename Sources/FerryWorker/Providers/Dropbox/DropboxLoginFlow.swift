import AsyncHTTPClient
import FerryDropbox
import FerryStore
import Foundation
import Logging

/// Dropbox OAuth 2: authorization code with PKCE and offline access (a refresh token).
struct DropboxLoginFlow: AccountLoginFlow {
    var inputs: [AccountInput] {
        [DropboxAccountKind.appKey, DropboxAccountKind.appSecret, DropboxAccountKind.apiURL, DropboxAccountKind.contentURL,
         DropboxAccountKind.authorizeURL]
    }

    func app(from inputs: AccountInputs) throws(AccountSetupError) -> AccountApp {
        guard let appKey = inputs[DropboxAccountKind.appKey] else {
            throw AccountSetupError(.usage, "no account named \(inputs.name): to create it, give --provider dropbox \(DropboxAccountKind.appKey.usage)")
        }
        return try DropboxAccountKind.app(appKey: appKey, inputs)
    }

    func app(of stored: AccountCredentials) throws(AccountSetupError) -> AccountApp {
        guard let appKey = stored.appKey else {
            throw AccountSetupError(.usage, "\(stored.name) has no app key stored: remove it and add it again")
        }
        return AccountApp(
            appKey: appKey, appSecret: stored.dropboxAppSecret, apiURL: stored.apiURL, contentURL: stored.contentURL,
            authorizeURL: stored.authorizeURL)
    }

    func secrets(of app: AccountApp) -> [String: String] {
        DropboxAccountKind.secrets(appSecret: app.appSecret)
    }

    func start(_ app: AccountApp, loopbackPort: Int?, httpClient: HTTPClient, logger: Logger) -> AccountLoginStart {
        let pkce = PKCE.generate()
        let url = Self.client(app, httpClient: httpClient, logger: logger)
            .authorizeURL(appKey: app.appKey, codeChallenge: pkce.challenge, state: nil, redirectURI: nil)
        return AccountLoginStart(url: url, codeVerifier: pkce.verifier)
    }

    func finish(
        code: String, started: AccountLoginStart, app: AccountApp, httpClient: HTTPClient, logger: Logger
    ) async throws(AccountSetupError) -> AccountLoginGrant {
        let grant: DropboxTokenGrant
        do {
            grant = try await Self.client(app, httpClient: httpClient, logger: logger).exchangeAuthorizationCode(
                code, codeVerifier: started.codeVerifier, appKey: app.appKey, appSecret: app.appSecret, redirectURI: nil)
        } catch {
            throw AccountSetupError(
                error.isRetryable ? .unreachable : .rejected,
                "could not exchange the authorization code (it may have expired or been used) (\(error)); check the account's URLs and retry")
        }
        guard let refreshToken = grant.refreshToken else {
            throw AccountSetupError(.rejected, "the provider returned no refresh token (offline access refused): check the app's settings")
        }
        return AccountLoginGrant(
            refreshToken: refreshToken, accessToken: grant.accessToken,
            accessTokenExpiresAt: Date().addingTimeInterval(grant.expiresIn ?? 14400), providerAccountID: grant.accountID)
    }

    static func client(_ app: AccountApp, httpClient: HTTPClient, logger: Logger) -> DropboxClient {
        let endpoints = DropboxEndpoints(
            api: app.apiURL ?? DropboxEndpoints.production.api, content: app.contentURL ?? DropboxEndpoints.production.content,
            authorize: app.authorizeURL ?? DropboxEndpoints.production.authorize)
        return DropboxClient(httpClient: httpClient, endpoints: endpoints, logger: logger)
    }
}
