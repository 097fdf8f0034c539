import AsyncHTTPClient
import FerryHTTP
import Foundation
import Logging

/// An installed-app OAuth code flow: the authorize URL with PKCE (S256) and a state, and a loopback redirect
/// (`http://127.0.0.1:PORT/`). `ferry account login` prints the URL and listens there for the browser's return (the
/// redirect's address holds the code and the state, which must match); a person on another machine pastes the code or
/// the whole address the browser was sent to instead. A conforming flow names its service's authorize URL and token
/// exchange; the rest is here once.
protocol LoopbackPKCELoginFlow: AccountLoginFlow {
    /// The port asked for first; the services let desktop clients use any loopback port, so a taken one is no
    /// obstacle (`ferry account login` then listens on a free one).
    static var preferredPort: Int { get }
    /// Who answers, in errors ("… did not grant access").
    var service: String { get }
    /// The refusal when the service sent no refresh token (offline access refused).
    var noRefreshToken: AccountSetupError { get }
    /// The service's authorize URL for `app` with the PKCE `codeChallenge`, `state` and `redirectURI`.
    func authorizeURL(
        _ app: AccountApp, codeChallenge: String, state: String, redirectURI: String, httpClient: HTTPClient, logger: Logger
    ) -> String
    /// Redeems `code` at the service's token endpoint (an ``AccountSetupError`` when refused or unreachable).
    func exchange(
        _ code: String, codeVerifier: String, app: AccountApp, redirectURI: String, httpClient: HTTPClient, logger: Logger
    ) async throws(AccountSetupError) -> OAuthTokenGrant
}

extension LoopbackPKCELoginFlow {
    var loopbackPort: Int? { Self.preferredPort }

    /// Where the browser is sent back to when `ferry account login` listens on `port`.
    static func redirectURI(port: Int?) -> String { "http://127.0.0.1:\(port ?? preferredPort)/" }

    func start(_ app: AccountApp, loopbackPort: Int?, httpClient: HTTPClient, logger: Logger) -> AccountLoginStart {
        let redirectURI = Self.redirectURI(port: loopbackPort)
        let pkce = OAuthPKCE.generate()
        let state = OAuthPKCE.generate().challenge.prefix(24)
        let url = authorizeURL(
            app, codeChallenge: pkce.challenge, state: String(state), redirectURI: redirectURI, httpClient: httpClient, logger: logger)
        return AccountLoginStart(
            url: url, codeVerifier: pkce.verifier, loopbackPort: loopbackPort ?? Self.preferredPort, redirectURI: redirectURI)
    }

    func finish(
        code: String, started: AccountLoginStart, app: AccountApp, httpClient: HTTPClient, logger: Logger
    ) async throws(AccountSetupError) -> AccountLoginGrant {
        let pasted = try LoopbackRedirect.code(from: code, expectedState: LoopbackRedirect.parameter("state", of: started.url), service: service)
        let grant = try await exchange(
            pasted, codeVerifier: started.codeVerifier, app: app, redirectURI: started.redirectURI ?? Self.redirectURI(port: nil),
            httpClient: httpClient, logger: logger)
        guard let refreshToken = grant.refreshToken else { throw noRefreshToken }
        return AccountLoginGrant(
            refreshToken: refreshToken, accessToken: grant.accessToken,
            accessTokenExpiresAt: Date().addingTimeInterval(grant.expiresIn ?? 3599), providerAccountID: nil)
    }
}
