import FerryCore
import Crypto
import Foundation
import Hummingbird

/// `/oauth2/authorize`, `/oauth2/token` (refresh and PKCE code grants).
extension DevServerResponder {
    func oauth(_ endpoint: Endpoint, request: Request) async throws -> Response {
        switch endpoint {
        case .oauthAuthorize: return try authorize(request)
        default: return try await token(request)
        }
    }

    private func queryParameters(_ request: Request) -> [String: String] {
        FormDecoding.decode(request.uri.query ?? "")
    }

    /// A dev server has nobody to click "Allow": the code is issued at once, redirected to
    /// `redirect_uri` (with `state`) when given, otherwise shown as plain text like Dropbox's
    /// no-redirect flow.
    private func authorize(_ request: Request) throws -> Response {
        let query = queryParameters(request)
        guard query["client_id"] == backend.configuration.appKey else {
            throw DropboxError.text(.badRequest, "Invalid client_id: this app key is not known to the dev server.")
        }
        guard query["response_type"] == "code" else {
            throw DropboxError.text(.badRequest, "Unsupported response_type: only \"code\" is supported.")
        }
        let method = query["code_challenge_method"] ?? "plain"
        guard method == "S256" || method == "plain" else {
            throw DropboxError.text(.badRequest, "Invalid code_challenge_method: expected S256 or plain.")
        }
        if let challenge = query["code_challenge"], !(43...128).contains(challenge.count) {
            throw DropboxError.text(.badRequest, "Invalid code_challenge: must be 43 to 128 characters.")
        }
        let accountName = query["account"] ?? backend.configuration.defaultAccount
        let account = try backend.ensureAccount(accountName)
        let accessType = query["token_access_type"] ?? "online"
        let code = backend.tokens.storeCode(AuthorizationCode(
            account: account.name,
            codeChallenge: query["code_challenge"],
            challengeMethod: method,
            redirectURI: query["redirect_uri"],
            offline: accessType == "offline",
            expiresAt: backend.tokens.clock.now + 600
        ))
        if let redirect = query["redirect_uri"] {
            var location = redirect + (redirect.contains("?") ? "&" : "?") + "code=" + FormDecoding.escape(code)
            if let state = query["state"] { location += "&state=" + FormDecoding.escape(state) }
            var headers = HTTPFields()
            headers[.location] = location
            return Response(status: .found, headers: headers)
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: code)))
    }

    /// Client credentials from HTTP Basic or the form. A Basic header that does not decode to `id:secret` is a
    /// malformed request (400), never a silent fall-back to the form.
    private func clientCredentials(_ request: Request, form: [String: String]) throws(DropboxError) -> (id: String?, secret: String?) {
        if let header = request.headers[.authorization], header.lowercased().hasPrefix("basic ") {
            guard let data = Data(base64Encoded: String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
                  let decoded = String(data: data, encoding: .utf8), let colon = decoded.firstIndex(of: ":")
            else {
                throw .oauth("invalid_request", "Malformed HTTP Basic credentials in the Authorization header")
            }
            return (String(decoded[..<colon]), String(decoded[decoded.index(after: colon)...]))
        }
        return (form["client_id"], form["client_secret"])
    }

    private func token(_ request: Request) async throws -> Response {
        guard request.method == .post else {
            throw DropboxError.oauth("invalid_request", "The token endpoint only accepts POST.")
        }
        var request = request
        let body = try await request.collectBody(upTo: 1024 * 1024)
        // Dropbox also accepts the parameters in the query string; the body wins.
        var form = queryParameters(request)
        form.merge(FormDecoding.decode(String(buffer: body))) { _, new in new }
        let (clientID, clientSecret) = try clientCredentials(request, form: form)
        guard let clientID else {
            throw DropboxError.oauth("invalid_request", "No auth function available for given request")
        }
        guard clientID == backend.configuration.appKey else {
            throw DropboxError.oauth("invalid_client", "Invalid client_id or client_secret")
        }
        // The app always has a secret (see DevServerConfiguration.appSecret): a wrong one is refused, and only
        // PKCE flows and the refresh tokens they produced may go without it.
        if let secret = clientSecret, secret != backend.configuration.appSecret {
            throw DropboxError.oauth("invalid_client", "Invalid client_id or client_secret")
        }
        let secretVerified = clientSecret != nil
        switch form["grant_type"] {
        case "refresh_token":
            guard let refreshToken = form["refresh_token"], let record = backend.tokens.refreshRecord(refreshToken) else {
                throw DropboxError.oauth("invalid_grant", "refresh token is invalid or revoked")
            }
            guard secretVerified || record.publicClient else {
                throw DropboxError.oauth("invalid_client", "Invalid client_id or client_secret")
            }
            let accessToken = backend.issueAccessToken(account: record.account, refreshToken: refreshToken)
            backend.stats.record { $0.tokenRefreshesPerAccount[record.account, default: 0] += 1 }
            return .json(.object([
                "access_token": .string(accessToken),
                "token_type": .string("bearer"),
                "expires_in": .int(backend.expiresIn),
            ]))
        case "authorization_code":
            guard let codeValue = form["code"], let code = backend.tokens.consumeCode(codeValue) else {
                throw DropboxError.oauth("invalid_grant", "code doesn't exist or has expired")
            }
            if let challenge = code.codeChallenge {
                guard let verifier = form["code_verifier"], Self.pkceMatches(verifier: verifier, challenge: challenge, method: code.challengeMethod) else {
                    throw DropboxError.oauth("invalid_grant", "invalid code verifier")
                }
            } else if !secretVerified {
                throw DropboxError.oauth("invalid_request", "No auth function available for given request")
            }
            if let expected = code.redirectURI, form["redirect_uri"] != expected {
                throw DropboxError.oauth("invalid_grant", "redirect_uri mismatch")
            }
            guard let account = backend.tokens.account(named: code.account) else {
                throw DropboxError.oauth("invalid_grant", "code doesn't exist or has expired")
            }
            let refreshToken = code.offline
                ? backend.tokens.issueRefreshToken(account: account.name, publicClient: code.codeChallenge != nil && clientSecret == nil)
                : nil
            let accessToken = backend.issueAccessToken(account: account.name, refreshToken: refreshToken)
            var result: [String: JSONValue] = [
                "access_token": .string(accessToken),
                "token_type": .string("bearer"),
                "expires_in": .int(backend.expiresIn),
                "scope": .string("account_info.read files.content.read files.content.write files.metadata.read files.metadata.write"),
                "uid": .string(String(account.accountID.utf8.reduce(UInt32(5381)) { ($0 &* 33) &+ UInt32($1) } % 1_000_000_000)),
                "account_id": .string(account.accountID),
            ]
            if let refreshToken { result["refresh_token"] = .string(refreshToken) }
            return .json(.object(result))
        default:
            throw DropboxError.oauth("unsupported_grant_type", "grant_type must be one of authorization_code, refresh_token")
        }
    }

    /// RFC 7636: S256 is base64url(SHA-256(verifier)) without padding.
    static func pkceMatches(verifier: String, challenge: String, method: String) -> Bool {
        guard method == "S256" else { return verifier == challenge }
        let digest = SHA256.hash(data: Data(verifier.utf8))
        let encoded = Data(digest).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        return encoded == challenge
    }
}
