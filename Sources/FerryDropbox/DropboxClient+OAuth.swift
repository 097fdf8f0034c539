import FerryCore
import AsyncHTTPClient
import FerryHTTP
import NIOCore

/// OAuth 2 with Dropbox: the authorize URL, the token endpoint (code and refresh grants) and
/// token revocation. Secrets go only into request bodies, never into URLs, logs or errors.
extension DropboxClient {
    /// Exchanges a refresh token for a new short-lived access token (`grant_type=refresh_token`).
    /// Confidential apps pass `appSecret` (sent as `client_secret` in the form); PKCE public
    /// clients pass `nil`. An invalid or revoked refresh token is `.invalidGrant`.
    public func refreshAccessToken(refreshToken: String, appKey: String, appSecret: String?) async throws(DropboxError) -> DropboxTokenGrant {
        var form = [("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", appKey)]
        if let appSecret { form.append(("client_secret", appSecret)) }
        return try await tokenRequest(form, secrets: [refreshToken, appSecret].compactMap { $0 })
    }

    /// Exchanges an authorization code from the authorize page (`grant_type=authorization_code`)
    /// with its PKCE verifier. `redirectURI` must equal the one in the authorize URL, if any.
    public func exchangeAuthorizationCode(_ code: String, codeVerifier: String, appKey: String, appSecret: String?, redirectURI: String?) async throws(DropboxError) -> DropboxTokenGrant {
        var form = [("grant_type", "authorization_code"), ("code", code), ("code_verifier", codeVerifier), ("client_id", appKey)]
        if let appSecret { form.append(("client_secret", appSecret)) }
        if let redirectURI { form.append(("redirect_uri", redirectURI)) }
        return try await tokenRequest(form, secrets: [code, codeVerifier, appSecret].compactMap { $0 })
    }

    /// `auth/token/revoke`: disables the access token (and, on Dropbox, its refresh token).
    public func revokeToken(accessToken: String) async throws(DropboxError) {
        _ = try await rpc("auth/token/revoke", nil, accessToken: accessToken)
    }

    /// The page where a person allows the app: `{authorize}/oauth2/authorize` for the code flow
    /// with PKCE (S256) and an offline (refresh) token. Without `redirectURI`, Dropbox shows the
    /// code for the person to paste.
    public func authorizeURL(appKey: String, codeChallenge: String, state: String?, redirectURI: String?) -> String {
        var query = [
            ("client_id", appKey), ("response_type", "code"), ("code_challenge", codeChallenge),
            ("code_challenge_method", "S256"), ("token_access_type", "offline"),
        ]
        if let state { query.append(("state", state)) }
        if let redirectURI { query.append(("redirect_uri", redirectURI)) }
        return endpoints.authorize + "/oauth2/authorize?" + FormEncoding.encode(query)
    }

    /// `POST {api}/oauth2/token` with a form body.
    private func tokenRequest(_ form: [(String, String)], secrets: [String]) async throws(DropboxError) -> DropboxTokenGrant {
        var request = HTTPClientRequest(url: endpoints.api + "/oauth2/token")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(ByteBuffer(string: FormEncoding.encode(form)))
        let result = try await sendJSON(request, Call(route: "oauth2/token", oauth: true, secrets: secrets))
        guard let grant = DropboxTokenGrant(json: result) else {
            throw DropboxError(code: .invalidResponse, httpStatus: 200, summary: "token answer without access_token")
        }
        return grant
    }
}
