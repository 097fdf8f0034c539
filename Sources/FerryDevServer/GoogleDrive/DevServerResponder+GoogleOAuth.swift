import FerryCore
import Foundation
import Hummingbird

/// Google's OAuth endpoints: `POST /token` (`refresh_token` and `authorization_code` with a PKCE verifier; a client
/// id and secret as the dev server's app key and secret) and the installed-app authorize page, which has nobody to
/// click "Allow" and redirects to the loopback `redirect_uri` at once with a code.
extension DevServerResponder {
    /// What the token endpoint grants.
    static let googleScope = "https://www.googleapis.com/auth/drive"

    func googleToken(_ request: Request) async throws -> Response {
        guard request.method == .post else { throw GoogleAPIError.oauth(.methodNotAllowed, "invalid_request", "Use POST.") }
        let form = FormDecoding.decode(String(decoding: try await googleBody(request), as: UTF8.self))
        guard form["client_id"] == backend.configuration.appKey, form["client_secret"] == backend.configuration.appSecret else {
            throw GoogleAPIError.oauth(.unauthorized, "invalid_client", "Unauthorized")
        }
        // Google's access tokens live about an hour; a test's shorter lifetime wins.
        let lifetime = min(3599, backend.configuration.accessTokenLifetime)
        switch form["grant_type"] {
        case "refresh_token":
            guard let refresh = form["refresh_token"], let account = backend.gdrive.account(ofRefreshToken: refresh) else {
                throw GoogleAPIError.oauth(.badRequest, "invalid_grant", "Token has been expired or revoked.")
            }
            backend.stats.record { stats in
                stats.tokenRefreshesPerAccount["gdrive:" + account, default: 0] += 1
                stats.accessTokensIssued += 1
            }
            return .json(.object([
                "access_token": .string(backend.gdrive.issueAccessToken(account: account, lifetime: lifetime)),
                "expires_in": .int(Int64(lifetime.rounded(.up))), "scope": .string(Self.googleScope), "token_type": .string("Bearer"),
            ]))
        case "authorization_code":
            guard let value = form["code"], let code = backend.gdrive.consumeCode(value) else {
                throw GoogleAPIError.oauth(.badRequest, "invalid_grant", "Malformed auth code.")
            }
            if let challenge = code.codeChallenge {
                guard let verifier = form["code_verifier"], Self.pkceMatches(verifier: verifier, challenge: challenge, method: code.challengeMethod) else {
                    throw GoogleAPIError.oauth(.badRequest, "invalid_grant", "Invalid code verifier.")
                }
            }
            guard code.redirectURI == form["redirect_uri"] else { throw GoogleAPIError.oauth(.badRequest, "redirect_uri_mismatch", "Bad Request") }
            backend.stats.record { $0.accessTokensIssued += 1 }
            return .json(.object([
                "access_token": .string(backend.gdrive.issueAccessToken(account: code.account, lifetime: lifetime)),
                "refresh_token": .string(backend.gdrive.issueRefreshToken(account: code.account)),
                "expires_in": .int(Int64(lifetime.rounded(.up))), "scope": .string(Self.googleScope), "token_type": .string("Bearer"),
            ]))
        default:
            throw GoogleAPIError.oauth(.badRequest, "unsupported_grant_type", "Invalid grant_type.")
        }
    }

    /// `GET /o/oauth2/v2/auth?client_id&redirect_uri&response_type=code&code_challenge…`: redirects to a loopback
    /// `redirect_uri` with `code` and `state` (the account is `login_hint`, else the server's default account).
    func googleAuthorize(_ request: Request, query: [String: String]) throws(GoogleAPIError) -> Response {
        guard query["client_id"] == backend.configuration.appKey else {
            throw .oauth(.unauthorized, "invalid_client", "The OAuth client was not found.")
        }
        guard query["response_type"] == "code" else { throw .oauth(.badRequest, "unsupported_response_type", "Only code is supported.") }
        guard let redirect = query["redirect_uri"], Self.isLoopback(redirect) else {
            throw .oauth(.badRequest, "invalid_request", "redirect_uri must be a loopback address (http://127.0.0.1:PORT or http://localhost:PORT).")
        }
        let method = query["code_challenge_method"] ?? "plain"
        guard method == "S256" || method == "plain", query["code_challenge"].map({ (43...128).contains($0.count) }) ?? true else {
            throw .oauth(.badRequest, "invalid_request", "Invalid code_challenge.")
        }
        let name = query["login_hint"] ?? backend.configuration.defaultAccount
        guard !name.isEmpty, name.utf8.count <= 256 else { throw .oauth(.badRequest, "invalid_request", "Invalid login_hint.") }
        backend.gdrive.ensureAccount(name)
        let code = backend.gdrive.storeCode(GoogleAuthorizationCode(
            account: name, codeChallenge: query["code_challenge"], challengeMethod: method, redirectURI: redirect,
            expiresAt: backend.gdrive.clock.now + 600))
        var location = redirect + (redirect.contains("?") ? "&" : "?") + "code=" + FormDecoding.escape(code)
        if let state = query["state"] { location += "&state=" + FormDecoding.escape(state) }
        location += "&scope=" + FormDecoding.escape(Self.googleScope)
        var headers = HTTPFields()
        headers[.location] = location
        return Response(status: .found, headers: headers)
    }

    /// Installed apps redirect to the loopback interface only.
    static func isLoopback(_ uri: String) -> Bool {
        ["http://127.0.0.1:", "http://127.0.0.1/", "http://localhost:", "http://localhost/", "http://[::1]:"].contains { uri.hasPrefix($0) }
    }
}
