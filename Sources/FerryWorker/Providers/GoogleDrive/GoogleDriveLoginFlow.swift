import AsyncHTTPClient
import FerryGoogleDrive
import FerryHTTP
import FerryStore
import Foundation
import Logging

/// Google's installed-app flow: the authorize URL with PKCE (S256), offline access and a loopback redirect
/// (`http://127.0.0.1:PORT/`). `ferry account login` prints the URL and listens there for the browser's return (the
/// redirect's address holds the code and the state, which must match); a person on another machine pastes the code or
/// the whole address the browser was sent to instead.
struct GoogleDriveLoginFlow: LoopbackPKCELoginFlow {
    static let preferredPort = 53682

    var inputs: [AccountInput] { [GoogleDriveAccountKind.clientID, GoogleDriveAccountKind.clientSecret, GoogleDriveAccountKind.apiURL] }

    func app(from inputs: AccountInputs) throws(AccountSetupError) -> AccountApp {
        try GoogleDriveAccountKind.app(inputs)
    }

    func app(of stored: AccountCredentials) throws(AccountSetupError) -> AccountApp {
        guard let clientID = stored.appKey, let secret = stored.googleClientSecret else {
            throw AccountSetupError(.usage, "\(stored.name) has no client id or secret stored: remove it and add it again")
        }
        return AccountApp(appKey: clientID, appSecret: secret, apiURL: stored.apiURL, contentURL: nil, authorizeURL: nil)
    }

    func secrets(of app: AccountApp) -> [String: String] { GoogleDriveAccountKind.secrets(app) }

    var service: String { "Google" }

    var noRefreshToken: AccountSetupError {
        AccountSetupError(.rejected, "Google returned no refresh token (offline access refused): check the client's settings")
    }

    func authorizeURL(
        _ app: AccountApp, codeChallenge: String, state: String, redirectURI: String, httpClient: HTTPClient, logger: Logger
    ) -> String {
        GoogleDriveAccountKind.client(app, httpClient: httpClient, logger: logger).authorizeURL(
            clientID: app.appKey, codeChallenge: codeChallenge, state: state, redirectURI: redirectURI)
    }

    func exchange(
        _ code: String, codeVerifier: String, app: AccountApp, redirectURI: String, httpClient: HTTPClient, logger: Logger
    ) async throws(AccountSetupError) -> OAuthTokenGrant {
        do {
            return try await GoogleDriveAccountKind.client(app, httpClient: httpClient, logger: logger).exchangeAuthorizationCode(
                code, codeVerifier: codeVerifier, clientID: app.appKey, clientSecret: app.appSecret, redirectURI: redirectURI)
        } catch {
            throw GoogleDriveAccountKind.setupError(error, doing: "exchange the authorization code (it may have expired or been used)")
        }
    }
}
