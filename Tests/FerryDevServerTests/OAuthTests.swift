import Crypto
import FerryTestSupport
import Foundation
import Testing
@testable import FerryDevServer

@Suite("OAuth and authentication", .tags(.fast))
struct OAuthTests {
    @Test("refresh token grant issues working sl. tokens; bad grants get Dropbox's errors")
    func refreshTokenFlow() async throws {
        try await DevServerHarness.run { h in
            let refresh = h.server.issueRefreshToken(account: "alice")
            let result = try await h.tokenRequest([
                ("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", DevServerHarness.appKey), ("client_secret", h.appSecret),
            ])
            #expect(result.status == 200)
            #expect(result.header("Content-Type") == "application/json")
            let token = try #require(result.json["access_token"] as? String)
            #expect(token.hasPrefix("sl."))
            #expect(result.json["token_type"] as? String == "bearer")
            #expect(result.json["expires_in"] as? Int == 14400)
            #expect(result.json["refresh_token"] == nil, "Dropbox does not rotate refresh tokens")

            let account = try await h.rpc("users/get_current_account", token: token)
            #expect(account.status == 200)
            #expect((account.json["account_id"] as? String)?.hasPrefix("dbid:") == true)
            #expect((account.json["account_id"] as? String)?.count == 40, "Dropbox's account ids are 40 characters")
            #expect((account.json["name"] as? [String: Any])?["given_name"] as? String == "alice")

            let bad = try await h.tokenRequest([("grant_type", "refresh_token"), ("refresh_token", "nope"), ("client_id", DevServerHarness.appKey)])
            #expect(bad.status == 400)
            #expect(bad.json["error"] as? String == "invalid_grant")
            #expect(bad.json["error_description"] as? String == "refresh token is invalid or revoked")

            let wrongClient = try await h.tokenRequest([("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", "other")])
            #expect(wrongClient.status == 400)
            #expect(wrongClient.json["error"] as? String == "invalid_client")

            let wrongGrant = try await h.tokenRequest([("grant_type", "password"), ("client_id", DevServerHarness.appKey)])
            #expect(wrongGrant.json["error"] as? String == "unsupported_grant_type")

            #expect(h.server.stats().tokenRefreshesPerAccount["alice"] == 1)
        }
    }

    @Test("app secret is required when configured, by form or HTTP Basic")
    func appSecret() async throws {
        try await DevServerHarness.run(appSecret: "s3cret") { h in
            let refresh = h.server.issueRefreshToken(account: "bob")
            let missing = try await h.tokenRequest([("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", DevServerHarness.appKey)])
            #expect(missing.json["error"] as? String == "invalid_client")
            let wrong = try await h.tokenRequest([("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", DevServerHarness.appKey), ("client_secret", "x")])
            #expect(wrong.json["error"] as? String == "invalid_client")
            let form = try await h.tokenRequest([("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", DevServerHarness.appKey), ("client_secret", "s3cret")])
            #expect(form.status == 200)
            let basic = try await h.tokenRequest([("grant_type", "refresh_token"), ("refresh_token", refresh)], basicAuth: (DevServerHarness.appKey, "s3cret"))
            #expect(basic.status == 200)
            #expect((basic.json["access_token"] as? String)?.hasPrefix("sl.") == true)
        }
    }

    @Test("without a configured secret the app still has one: a confidential client must send it, a wrong one never passes")
    func defaultSecret() async throws {
        try await DevServerHarness.run { h in
            #expect(h.appSecret == DevServerConfiguration.defaultAppSecret)
            let refresh = h.server.issueRefreshToken(account: "erin")
            let base = [("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", DevServerHarness.appKey)]
            let missing = try await h.tokenRequest(base)
            #expect(missing.status == 400)
            #expect(missing.json["error"] as? String == "invalid_client")
            let wrong = try await h.tokenRequest(base + [("client_secret", "anything")])
            #expect(wrong.json["error"] as? String == "invalid_client")
            #expect(try await h.tokenRequest(base + [("client_secret", h.appSecret)]).status == 200)
            #expect(h.server.stats().tokenRefreshesPerAccount["erin"] == 1, "only the request with the secret refreshed")

            // A malformed HTTP Basic header is refused, not skipped in favour of the form.
            let malformed = try await h.request(.POST, "/oauth2/token", headers: [
                ("Content-Type", "application/x-www-form-urlencoded"), ("Authorization", "Basic !!not-base64!!"),
            ], body: Array("grant_type=refresh_token&refresh_token=\(refresh)&client_id=\(DevServerHarness.appKey)&client_secret=\(h.appSecret)".utf8))
            #expect(malformed.status == 400)
            #expect(malformed.json["error"] as? String == "invalid_request")
        }
    }

    @Test("a public client's refresh token (as from PKCE without the secret) refreshes without one, a wrong secret still fails")
    func publicClientToken() async throws {
        try await DevServerHarness.run { h in
            let linked = try await h.request(.POST, "/__dev/accounts", body: Array(#"{"account":"pat","public_client":true}"#.utf8))
            let refresh = try #require(linked.json["refresh_token"] as? String)
            let base = [("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", DevServerHarness.appKey)]
            #expect(try await h.tokenRequest(base).status == 200)
            #expect(try await h.tokenRequest(base + [("client_secret", "wrong")]).json["error"] as? String == "invalid_client")
            let confidential = try await h.request(.POST, "/__dev/accounts", body: Array(#"{"account":"pat"}"#.utf8))
            let secretNeeded = try #require(confidential.json["refresh_token"] as? String)
            #expect(try await h.tokenRequest([("grant_type", "refresh_token"), ("refresh_token", secretNeeded), ("client_id", DevServerHarness.appKey)])
                .json["error"] as? String == "invalid_client")
            #expect(try await h.request(.POST, "/__dev/accounts", body: Array(#"{"account":"pat","public_client":"yes"}"#.utf8)).status == 400)
        }
    }

    @Test("missing, malformed, unknown and expired tokens")
    func tokenErrors() async throws {
        try await DevServerHarness.run { h in
            let missing = try await h.request(.POST, "/2/users/get_current_account")
            #expect(missing.status == 400)
            #expect(missing.header("Content-Type")?.hasPrefix("text/plain") == true)
            #expect(missing.text.contains("Authorization"))

            let malformed = try await h.request(.POST, "/2/users/get_current_account", headers: [("Authorization", "Token abc")])
            #expect(malformed.status == 400)

            let unknown = try await h.rpc("users/get_current_account", token: "sl.unknown")
            #expect(unknown.status == 401)
            #expect(unknown.errorTag == "invalid_access_token")
            #expect(unknown.errorSummary.hasPrefix("invalid_access_token/"))

            let token = try await h.accessToken()
            #expect(try await h.rpc("users/get_current_account", token: token).status == 200)
            // Past the token's lifetime (the harness's 4 h) on the server's clock, without sleeping through it.
            h.server.configuration.clock.advance(by: 14_401)
            let answer = try await h.rpc("users/get_current_account", token: token)
            #expect(answer.status == 401)
            #expect(answer.errorTag == "expired_access_token")
            #expect(answer.errorSummary.hasPrefix("expired_access_token/"))
        }
    }

    private static func s256(_ verifier: String) -> String {
        Data(SHA256.hash(data: Data(verifier.utf8))).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    private func authorize(_ h: DevServerHarness, challenge: String, redirect: Bool) async throws -> HTTPResult {
        var path = "/oauth2/authorize?client_id=\(DevServerHarness.appKey)&response_type=code&code_challenge=\(challenge)"
            + "&code_challenge_method=S256&token_access_type=offline&account=carol"
        if redirect { path += "&redirect_uri=http%3A%2F%2Flocalhost%3A9%2Fcallback&state=st%20ate" }
        return try await h.request(.GET, path)
    }

    @Test("PKCE authorization code flow with S256 and offline access")
    func pkceFlow() async throws {
        try await DevServerHarness.run(appSecret: "s3cret") { h in
            let verifier = "verifier-" + String(repeating: "abc123", count: 8)
            let challenge = Self.s256(verifier)

            let redirected = try await authorize(h, challenge: challenge, redirect: true)
            #expect(redirected.status == 302)
            let location = try #require(redirected.header("Location"))
            #expect(location.hasPrefix("http://localhost:9/callback?code="))
            #expect(location.hasSuffix("&state=st%20ate"))
            let code = try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "code" }?.value)

            let wrong = try await h.tokenRequest([("grant_type", "authorization_code"), ("code", code), ("client_id", DevServerHarness.appKey),
                                                  ("code_verifier", "wrong-verifier-wrong-verifier-wrong-verifier"), ("redirect_uri", "http://localhost:9/callback")])
            #expect(wrong.status == 400)
            #expect(wrong.json["error"] as? String == "invalid_grant")

            // A new code (the failed attempt used up the first one), shown as text without redirect_uri.
            let plain = try await authorize(h, challenge: challenge, redirect: false)
            #expect(plain.status == 200)
            let code2 = plain.text
            // No client_secret: PKCE alone authenticates the public client.
            let exchange = try await h.tokenRequest([("grant_type", "authorization_code"), ("code", code2), ("client_id", DevServerHarness.appKey),
                                                     ("code_verifier", verifier)])
            #expect(exchange.status == 200)
            let refresh = try #require(exchange.json["refresh_token"] as? String)
            #expect((exchange.json["access_token"] as? String)?.hasPrefix("sl.") == true)
            #expect((exchange.json["account_id"] as? String)?.hasPrefix("dbid:") == true)
            #expect((exchange.json["account_id"] as? String)?.count == 40)
            #expect(exchange.json["token_type"] as? String == "bearer")

            let reuse = try await h.tokenRequest([("grant_type", "authorization_code"), ("code", code2), ("client_id", DevServerHarness.appKey),
                                                  ("code_verifier", verifier)])
            #expect(reuse.json["error"] as? String == "invalid_grant")

            let refreshed = try await h.tokenRequest([("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", DevServerHarness.appKey)])
            #expect(refreshed.status == 200)
            let token = try #require(refreshed.json["access_token"] as? String)
            let account = try await h.rpc("users/get_current_account", token: token)
            #expect((account.json["name"] as? [String: Any])?["given_name"] as? String == "carol")
        }
    }

    @Test("revoke disables the token, its refresh token and sibling tokens")
    func revoke() async throws {
        try await DevServerHarness.run { h in
            let refresh = h.server.issueRefreshToken(account: "dave")
            let form = [("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", DevServerHarness.appKey), ("client_secret", h.appSecret)]
            let first = try #require(try await h.tokenRequest(form).json["access_token"] as? String)
            let sibling = try #require(try await h.tokenRequest(form).json["access_token"] as? String)
            let unrelated = try await h.accessToken(account: "dave")

            let revoked = try await h.rpc("auth/token/revoke", token: first)
            #expect(revoked.status == 200)
            #expect(revoked.text == "null")

            #expect(try await h.rpc("users/get_current_account", token: first).errorTag == "invalid_access_token")
            #expect(try await h.rpc("users/get_current_account", token: sibling).errorTag == "invalid_access_token")
            #expect(try await h.tokenRequest(form).json["error"] as? String == "invalid_grant")
            // A token from another refresh token of the same account is untouched.
            #expect(try await h.rpc("users/get_current_account", token: unrelated).status == 200)
        }
    }
}
