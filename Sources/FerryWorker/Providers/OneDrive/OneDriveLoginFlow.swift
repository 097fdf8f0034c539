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
struct OneDriveLoginFlow: AccountLoginFlow {
    /// The port asked for first; the providers let desktop clients use any loopback port, so a taken one is no
    /// obstacle (`ferry account login` then listens on a free one).
    static let preferredPort = 53683

    var loopbackPort: Int? { Self.preferredPort }

    /// Where the browser is sent back to when `ferry account login` listens on `port`.
    static func redirectURI(port: Int?) -> String { "http://127.0.0.1:\(port ?? preferredPort)/" }

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

    func start(_ app: AccountApp, loopbackPort: Int?, httpClient: HTTPClient, logger: Logger) -> AccountLoginStart {
        let redirectURI = Self.redirectURI(port: loopbackPort)
        let pkce = OAuthPKCE.generate()
        let state = OAuthPKCE.generate().challenge.prefix(24)
        let url = OneDriveAccountKind.client(app, httpClient: httpClient, logger: logger).authorizeURL(
            clientID: app.appKey, codeChallenge: pkce.challenge, state: String(state), redirectURI: redirectURI)
        return AccountLoginStart(
            url: url, codeVerifier: pkce.verifier, loopbackPort: loopbackPort ?? Self.preferredPort, redirectURI: redirectURI)
    }

    func finish(
        code: String, started: AccountLoginStart, app: AccountApp, httpClient: HTTPClient, logger: Logger
    ) async throws(AccountSetupError) -> AccountLoginGrant {
        let pasted = try LoopbackRedirect.code(from: code, expectedState: LoopbackRedirect.parameter("state", of: started.url), service: "Microsoft")
        let grant: OneDriveTokenGrant
        do {
            grant = try await OneDriveAccountKind.client(app, httpClient: httpClient, logger: logger).exchangeAuthorizationCode(
                pasted, codeVerifier: started.codeVerifier, clientID: app.appKey, clientSecret: app.appSecret,
                redirectURI: started.redirectURI ?? Self.redirectURI(port: nil))
        } catch {
            throw OneDriveAccountKind.setupError(error, doing: "exchange the authorization code (it may have expired or been used)")
        }
        guard let refreshToken = grant.refreshToken else {
            throw AccountSetupError(.rejected, "Microsoft returned no refresh token (offline_access refused): check the app registration's permissions")
        }
        return AccountLoginGrant(
            refreshToken: refreshToken, accessToken: grant.accessToken,
            accessTokenExpiresAt: Date().addingTimeInterval(grant.expiresIn ?? 3599), providerAccountID: nil)
    }
}
