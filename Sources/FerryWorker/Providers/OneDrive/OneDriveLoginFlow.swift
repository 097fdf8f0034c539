import AsyncHTTPClient
import FerryHTTP
import FerryOneDrive
import FerryStore
import Foundation
import Logging

/// The Microsoft identity platform's code flow for desktop apps: the authorize URL with PKCE (S256), the
/// `offline_access` scope and a loopback redirect (`http://127.0.0.1:PORT/`; Microsoft lets desktop registrations use
/// with any port). `ferry account login` prints the URL and listens there for the browser's return; a person on
/// another machine pastes the code or the whole address the browser was sent to instead.
struct OneDriveLoginFlow: LoopbackPKCELoginFlow {
    static let preferredPort = 53683

    var inputs: [AccountInput] {
        [OneDriveAccountKind.clientID, OneDriveAccountKind.clientSecret, OneDriveAccountKind.apiURL, OneDriveAccountKind.loginURL]
    }

    func app(from inputs: AccountInputs) throws(AccountSetupError) -> AccountApp {
        try OneDriveAccountKind.app(inputs)
    }

    func app(of stored: AccountCredentials) throws(AccountSetupError) -> AccountApp {
        guard let clientID = stored.appKey else {
            throw AccountSetupError(.usage, "\(stored.name) has no client id stored: remove it and add it again")
        }
        return AccountApp(appKey: clientID, appSecret: stored.oneDriveClientSecret, apiURL: stored.apiURL, contentURL: nil, authorizeURL: stored.authorizeURL)
    }

    func secrets(of app: AccountApp) -> [String: String] { OneDriveAccountKind.secrets(app) }

    var service: String { "Microsoft" }

    var noRefreshToken: AccountSetupError {
        AccountSetupError(.rejected, "Microsoft returned no refresh token (offline_access refused): check the app registration's permissions")
    }

    func authorizeURL(
        _ app: AccountApp, codeChallenge: String, state: String, redirectURI: String, httpClient: HTTPClient, logger: Logger
    ) -> String {
        OneDriveAccountKind.client(app, httpClient: httpClient, logger: logger).authorizeURL(
            clientID: app.appKey, codeChallenge: codeChallenge, state: state, redirectURI: redirectURI)
    }

    func exchange(
        _ code: String, codeVerifier: String, app: AccountApp, redirectURI: String, httpClient: HTTPClient, logger: Logger
    ) async throws(AccountSetupError) -> OAuthTokenGrant {
        do {
            return try await OneDriveAccountKind.client(app, httpClient: httpClient, logger: logger).exchangeAuthorizationCode(
                code, codeVerifier: codeVerifier, clientID: app.appKey, clientSecret: app.appSecret, redirectURI: redirectURI)
        } catch {
            throw OneDriveAccountKind.setupError(error, doing: "exchange the authorization code (it may have expired or been used)")
        }
    }
}
