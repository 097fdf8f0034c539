import AsyncHTTPClient
import FerryCore
import FerryHTTP
import NIOCore

/// OAuth 2 with Google: the installed-app authorize URL (loopback redirect, PKCE), the token endpoint (code and
/// refresh grants). Secrets go only into request bodies, never into URLs, logs or errors.
extension GoogleDriveClient {
    /// The scope a backup tool asks for: every file of the account.
    public static let driveScope = "https://www.googleapis.com/auth/drive"

    /// Exchanges a refresh token for a new access token (`grant_type=refresh_token`). A revoked or expired refresh
    /// token is `.invalidGrant`: the account needs a new login.
    public func refreshAccessToken(refreshToken: String, clientID: String, clientSecret: String?) async throws(GoogleDriveError) -> GoogleDriveTokenGrant {
        var form = [("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", clientID)]
        if let clientSecret { form.append(("client_secret", clientSecret)) }
        return try await tokenRequest(form, secrets: [refreshToken, clientSecret].compactMap { $0 })
    }

    /// Exchanges the code the loopback redirect brought (`grant_type=authorization_code`) with its PKCE verifier.
    /// `redirectURI` must equal the one in the authorize URL.
    public func exchangeAuthorizationCode(
        _ code: String, codeVerifier: String, clientID: String, clientSecret: String?, redirectURI: String
    ) async throws(GoogleDriveError) -> GoogleDriveTokenGrant {
        var form = [
            ("grant_type", "authorization_code"), ("code", code), ("code_verifier", codeVerifier), ("client_id", clientID),
            ("redirect_uri", redirectURI),
        ]
        if let clientSecret { form.append(("client_secret", clientSecret)) }
        return try await tokenRequest(form, secrets: [code, codeVerifier, clientSecret].compactMap { $0 })
    }

    /// The page where a person allows the app: the code flow with PKCE (S256) and offline access (a refresh token),
    /// redirecting to `redirectURI` (a loopback address the caller listens on).
    public func authorizeURL(clientID: String, codeChallenge: String, state: String, redirectURI: String, scope: String = driveScope) -> String {
        let query = [
            ("client_id", clientID), ("redirect_uri", redirectURI), ("response_type", "code"), ("scope", scope),
            ("code_challenge", codeChallenge), ("code_challenge_method", "S256"), ("state", state),
            ("access_type", "offline"), ("prompt", "consent"),
        ]
        return endpoints.authorize + (endpoints.authorize.contains("?") ? "&" : "?") + FormEncoding.encode(query)
    }

    /// `POST {token}` with a form body.
    private func tokenRequest(_ form: [(String, String)], secrets: [String]) async throws(GoogleDriveError) -> GoogleDriveTokenGrant {
        var request = HTTPClientRequest(url: endpoints.token)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(ByteBuffer(string: FormEncoding.encode(form)))
        let result = try await sendJSON(request, Call(route: "token", oauth: true, secrets: secrets))
        guard let grant = GoogleDriveTokenGrant(json: result) else {
            throw GoogleDriveError(code: .invalidResponse, httpStatus: 200, summary: "token answer without access_token")
        }
        return grant
    }
}
