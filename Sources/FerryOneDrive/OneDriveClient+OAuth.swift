import AsyncHTTPClient
import Crypto
import FerryCore
import FerryHTTP
import NIOCore

/// OAuth 2.0 with the Microsoft identity platform: the authorize URL (code flow, PKCE S256, loopback redirect), the
/// token endpoint (code and refresh grants, `offline_access` for a refresh token). Secrets go only into request
/// bodies, never into URLs, logs or errors.
extension OneDriveClient {
    /// What a backup tool asks for: every file of the user, and a refresh token.
    public static let scope = "Files.ReadWrite offline_access"

    /// `grant_type=refresh_token`. A revoked or expired refresh token is `.invalidGrant`: the account needs a login.
    /// Public (desktop) clients have no secret; confidential ones send it.
    public func refreshAccessToken(refreshToken: String, clientID: String, clientSecret: String?) async throws(OneDriveError) -> OneDriveTokenGrant {
        var form = [("client_id", clientID), ("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("scope", Self.scope)]
        if let clientSecret { form.append(("client_secret", clientSecret)) }
        return try await tokenRequest(form, secrets: [refreshToken, clientSecret].compactMap { $0 })
    }

    /// `grant_type=authorization_code` with the PKCE verifier; `redirectURI` must equal the authorize URL's.
    public func exchangeAuthorizationCode(
        _ code: String, codeVerifier: String, clientID: String, clientSecret: String?, redirectURI: String
    ) async throws(OneDriveError) -> OneDriveTokenGrant {
        var form = [
            ("client_id", clientID), ("grant_type", "authorization_code"), ("code", code), ("code_verifier", codeVerifier),
            ("redirect_uri", redirectURI), ("scope", Self.scope),
        ]
        if let clientSecret { form.append(("client_secret", clientSecret)) }
        return try await tokenRequest(form, secrets: [code, codeVerifier, clientSecret].compactMap { $0 })
    }

    /// The page where a person allows the app: the code flow with PKCE (S256), redirecting to `redirectURI`.
    public func authorizeURL(clientID: String, codeChallenge: String, state: String, redirectURI: String, scope: String = scope) -> String {
        let query = [
            ("client_id", clientID), ("response_type", "code"), ("redirect_uri", redirectURI), ("response_mode", "query"),
            ("scope", scope), ("code_challenge", codeChallenge), ("code_challenge_method", "S256"), ("state", state),
        ]
        return endpoints.authorize + "?" + FormEncoding.encode(query)
    }

    private func tokenRequest(_ form: [(String, String)], secrets: [String]) async throws(OneDriveError) -> OneDriveTokenGrant {
        var request = HTTPClientRequest(url: endpoints.token)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(ByteBuffer(string: FormEncoding.encode(form)))
        let result = try await sendJSON(request, Call(route: "token", oauth: true, secrets: secrets))
        guard let grant = OneDriveTokenGrant(json: result) else {
            throw OneDriveError(code: .invalidResponse, httpStatus: 200, summary: "token answer without access_token")
        }
        return grant
    }
}
