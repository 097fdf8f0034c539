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
struct GoogleDriveLoginFlow: AccountLoginFlow {
    /// The port asked for first; the providers let desktop clients use any loopback port, so a taken one is no
    /// obstacle (`ferry account login` then listens on a free one).
    static let preferredPort = 53682

    var loopbackPort: Int? { Self.preferredPort }

    /// Where the browser is sent back to when `ferry account login` listens on `port`.
    static func redirectURI(port: Int?) -> String { "http://127.0.0.1:\(port ?? preferredPort)/" }

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

    func start(_ app: AccountApp, loopbackPort: Int?, httpClient: HTTPClient, logger: Logger) -> AccountLoginStart {
        let redirectURI = Self.redirectURI(port: loopbackPort)
        let pkce = OAuthPKCE.generate()
        let state = OAuthPKCE.generate().challenge.prefix(24)
        let url = GoogleDriveAccountKind.client(app, httpClient: httpClient, logger: logger).authorizeURL(
            clientID: app.appKey, codeChallenge: pkce.challenge, state: String(state), redirectURI: redirectURI)
        return AccountLoginStart(
            url: url, codeVerifier: pkce.verifier, loopbackPort: loopbackPort ?? Self.preferredPort, redirectURI: redirectURI)
    }

    func finish(
        code: String, started: AccountLoginStart, app: AccountApp, httpClient: HTTPClient, logger: Logger
    ) async throws(AccountSetupError) -> AccountLoginGrant {
        let pasted = try LoopbackRedirect.code(from: code, expectedState: LoopbackRedirect.parameter("state", of: started.url), service: "Google")
        let grant: GoogleDriveTokenGrant
        do {
            grant = try await GoogleDriveAccountKind.client(app, httpClient: httpClient, logger: logger).exchangeAuthorizationCode(
                pasted, codeVerifier: started.codeVerifier, clientID: app.appKey, clientSecret: app.appSecret,
                redirectURI: started.redirectURI ?? Self.redirectURI(port: nil))
        } catch {
            throw GoogleDriveAccountKind.setupError(error, doing: "exchange the authorization code (it may have expired or been used)")
        }
        guard let refreshToken = grant.refreshToken else {
            throw AccountSetupError(.rejected, "Google returned no refresh token (offline access refused): check the client's settings")
        }
        return AccountLoginGrant(
            refreshToken: refreshToken, accessToken: grant.accessToken,
            accessTokenExpiresAt: Date().addingTimeInterval(grant.expiresIn ?? 3599), providerAccountID: nil)
    }
}
