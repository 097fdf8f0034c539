import FerryCore
import Foundation
import Hummingbird

/// The identity platform's endpoints under any tenant: `POST /{tenant}/oauth2/v2.0/token` (`refresh_token` and
/// `authorization_code` with a PKCE verifier; the client id is the dev server's app key, a client secret optional
/// but checked when sent; each grant brings a new refresh token, the old one staying valid) and
/// `GET /{tenant}/oauth2/v2.0/authorize`, which has nobody to click "Accept" and redirects to the loopback
/// `redirect_uri` at once with a code.
extension DevServerResponder {
    static let oneDriveScope = "https://graph.microsoft.com/Files.ReadWrite"

    func oneDriveToken(_ request: Request, store: OneDriveStore) async throws -> Response {
        guard request.method == .post else { throw OneDriveGraphError.oauth(.methodNotAllowed, "invalid_request", "Use POST.") }
        var request = request
        let body = try await request.collectBody(upTo: 64 * 1024)
        let form = FormDecoding.decode(String(decoding: body.readableBytesView, as: UTF8.self))
        guard form["client_id"] == backend.configuration.appKey, form["client_secret"].map({ $0 == backend.configuration.appSecret }) ?? true else {
            throw OneDriveGraphError.oauth(.unauthorized, "invalid_client", "The client id or secret is not valid.")
        }
        let lifetime = min(3599, backend.configuration.accessTokenLifetime)
        let account: String
        switch form["grant_type"] {
        case "refresh_token":
            guard let refresh = form["refresh_token"], let found = store.account(ofRefreshToken: refresh) else {
                throw OneDriveGraphError.oauth(.badRequest, "invalid_grant", "The refresh token has expired or been revoked.")
            }
            account = found
            store.record { $0.tokenRefreshes += 1 }
        case "authorization_code":
            guard let value = form["code"], let code = store.consumeCode(value) else {
                throw OneDriveGraphError.oauth(.badRequest, "invalid_grant", "The code has expired or been used.")
            }
            if let challenge = code.challenge {
                guard let verifier = form["code_verifier"], Self.pkceMatches(verifier: verifier, challenge: challenge, method: code.method) else {
                    throw OneDriveGraphError.oauth(.badRequest, "invalid_grant", "The code_verifier does not match the code_challenge.")
                }
            }
            guard code.redirectURI == form["redirect_uri"] else {
                throw OneDriveGraphError.oauth(.badRequest, "invalid_grant", "The redirect_uri does not match the authorization request.")
            }
            account = code.account
        default:
            throw OneDriveGraphError.oauth(.badRequest, "unsupported_grant_type", "The grant type is not supported.")
        }
        backend.stats.record { $0.accessTokensIssued += 1 }
        var answer: [String: JSONValue] = [
            "token_type": .string("Bearer"), "scope": .string(Self.oneDriveScope), "expires_in": .int(Int64(lifetime.rounded(.up))),
            "ext_expires_in": .int(Int64(lifetime.rounded(.up))),
            "access_token": .string(store.issueAccessToken(account: account, lifetime: lifetime)),
        ]
        if form["scope"]?.split(separator: " ").contains("offline_access") == true {
            answer["refresh_token"] = .string(store.issueRefreshToken(account: account))
        }
        return .json(.object(answer))
    }

    func oneDriveAuthorize(_ request: Request, store: OneDriveStore) throws(OneDriveGraphError) -> Response {
        let query = FormDecoding.decode(request.uri.query ?? "")
        guard query["client_id"] == backend.configuration.appKey else {
            throw .oauth(.badRequest, "unauthorized_client", "The client does not exist.")
        }
        guard query["response_type"] == "code" else { throw .oauth(.badRequest, "unsupported_response_type", "Only code is supported.") }
        guard let redirect = query["redirect_uri"], Self.isLoopback(redirect) else {
            throw .oauth(.badRequest, "invalid_request", "redirect_uri must be a loopback address.")
        }
        let method = query["code_challenge_method"] ?? "plain"
        guard method == "S256" || method == "plain", query["code_challenge"].map({ (43...128).contains($0.count) }) ?? true else {
            throw .oauth(.badRequest, "invalid_request", "Invalid code_challenge.")
        }
        let name = query["login_hint"] ?? backend.configuration.defaultAccount
        guard !name.isEmpty, name.utf8.count <= 256 else { throw .oauth(.badRequest, "invalid_request", "Invalid login_hint.") }
        store.ensureAccount(name)
        let code = store.storeCode(OneDriveStore.Code(
            account: name, challenge: query["code_challenge"], method: method, redirectURI: redirect, expiresAt: store.clock.now + 600))
        var location = redirect + (redirect.contains("?") ? "&" : "?") + "code=" + FormDecoding.escape(code)
        if let state = query["state"] { location += "&state=" + FormDecoding.escape(state) }
        var headers = HTTPFields()
        headers[.location] = location
        return Response(status: .found, headers: headers)
    }
}
