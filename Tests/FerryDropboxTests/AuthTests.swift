import FerryCore
import FerryTestSupport
import Foundation
import Testing
@testable import FerryDropbox

@Suite("OAuth and access tokens", .tags(.fast))
struct AuthTests {
    @Test("an expired access token is expiredAccessToken; the refresh token gets a working one")
    func expiry() async throws {
        try await DropboxTestServer.run(accessTokenLifetime: 3600) { t in
            let refresh = t.server.issueRefreshToken(account: "alice")
            // The server's clock decides expiry and the test moves it: no race with a loaded machine.
            func freshWorkingToken() async throws -> (DropboxTokenGrant, JSONValue) {
                let grant = try await t.client.refreshAccessToken(refreshToken: refresh, appKey: DropboxTestServer.appKey, appSecret: t.server.configuration.appSecret)
                return (grant, try await t.client.currentAccount(accessToken: grant.accessToken))
            }
            let (grant, account) = try await freshWorkingToken()
            #expect(grant.expiresIn == 3600)
            #expect(grant.refreshToken == nil, "Dropbox does not rotate refresh tokens")
            #expect(account["account_id"]?.stringValue?.hasPrefix("dbid:") == true)

            // The server's clock moves past the hour's lifetime: no sleeping through it.
            t.server.configuration.clock.advance(by: 3601)
            let expired = await #expect(throws: DropboxError.self) {
                try await t.client.currentAccount(accessToken: grant.accessToken)
            }
            #expect(expired?.code == .expiredAccessToken)
            #expect(expired?.httpStatus == 401)
            #expect(expired?.tags == ["expired_access_token"])
            #expect(expired?.isRetryable == false)
            #expect(expired.map { !"\($0)".contains(grant.accessToken) } == true)

            let (renewed, again) = try await freshWorkingToken()
            #expect(renewed.accessToken != grant.accessToken)
            #expect(again["account_id"] == account["account_id"])
        }
    }

    @Test("bad refresh tokens are invalidGrant, bad client credentials invalidClient, unknown tokens invalidAccessToken")
    func badCredentials() async throws {
        try await DropboxTestServer.run(appSecret: "s3cr3t-app-secret") { t in
            let refresh = t.server.issueRefreshToken(account: "bob")
            let bogus = "bogus-refresh-token-123456"
            let invalid = await #expect(throws: DropboxError.self) {
                try await t.client.refreshAccessToken(refreshToken: bogus, appKey: DropboxTestServer.appKey, appSecret: "s3cr3t-app-secret")
            }
            #expect(invalid?.code == .invalidGrant)
            #expect(invalid?.httpStatus == 400)
            #expect(invalid?.tags == ["invalid_grant"])
            #expect(invalid.map { !"\($0)".contains(bogus) } == true)

            let wrongSecret = await #expect(throws: DropboxError.self) {
                try await t.client.refreshAccessToken(refreshToken: refresh, appKey: DropboxTestServer.appKey, appSecret: "wrong-secret-value")
            }
            #expect(wrongSecret?.code == .invalidClient)
            #expect(wrongSecret.map { !"\($0)".contains("wrong-secret-value") && !"\($0)".contains(refresh) } == true)

            // A confidential app's refresh token does not refresh without the secret: the server checks it was sent.
            let noSecret = await #expect(throws: DropboxError.self) {
                try await t.client.refreshAccessToken(refreshToken: refresh, appKey: DropboxTestServer.appKey, appSecret: nil)
            }
            #expect(noSecret?.code == .invalidClient)

            let grant = try await t.client.refreshAccessToken(refreshToken: refresh, appKey: DropboxTestServer.appKey, appSecret: "s3cr3t-app-secret")
            _ = try await t.client.currentAccount(accessToken: grant.accessToken)

            let unknown = await #expect(throws: DropboxError.self) {
                try await t.client.currentAccount(accessToken: "sl.not-a-real-token")
            }
            #expect(unknown?.code == .invalidAccessToken)

            let malformed = await #expect(throws: DropboxError.self) {
                try await t.client.currentAccount(accessToken: "two words")
            }
            #expect(malformed?.code == .badRequest)
            #expect(malformed?.httpStatus == nil, "refused before sending")
        }
    }

    @Test("revoking a token makes Dropbox reject it")
    func revoke() async throws {
        try await DropboxTestServer.run { t in
            let token = try await t.accessToken(account: "carol")
            _ = try await t.client.currentAccount(accessToken: token)
            try await t.client.revokeToken(accessToken: token)
            let rejected = await #expect(throws: DropboxError.self) {
                try await t.client.currentAccount(accessToken: token)
            }
            #expect(rejected?.code == .invalidAccessToken)
            #expect(rejected?.httpStatus == 401)
        }
    }

    @Test("PKCE: authorize without redirect shows the code, which the verifier exchanges for tokens")
    func pkceFlow() async throws {
        try await DropboxTestServer.run { t in
            let pkce = PKCE.generate()
            let url = t.client.authorizeURL(appKey: DropboxTestServer.appKey, codeChallenge: pkce.challenge, state: nil, redirectURI: nil)
            let page = try await t.get(url)
            #expect(page.status == 200)
            let code = page.text.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(!code.isEmpty)

            let wrongVerifier = await #expect(throws: DropboxError.self) {
                try await t.client.exchangeAuthorizationCode(code, codeVerifier: PKCE.generate().verifier, appKey: DropboxTestServer.appKey, appSecret: nil, redirectURI: nil)
            }
            #expect(wrongVerifier?.code == .invalidGrant)
            #expect(wrongVerifier.map { !"\($0)".contains(code) && !"\($0)".contains(pkce.verifier) } == true)

            // The failed attempt used the code up, as on Dropbox; authorize again.
            let second = try await t.get(url).text.trimmingCharacters(in: .whitespacesAndNewlines)
            let grant = try await t.client.exchangeAuthorizationCode(second, codeVerifier: pkce.verifier, appKey: DropboxTestServer.appKey, appSecret: nil, redirectURI: nil)
            let refresh = try #require(grant.refreshToken)
            #expect(grant.accountID?.hasPrefix("dbid:") == true)
            #expect(grant.expiresIn == 14400)
            #expect(grant.scope?.contains("files.content.write") == true)
            let account = try await t.client.currentAccount(accessToken: grant.accessToken)
            #expect(account["account_id"]?.stringValue == grant.accountID)

            // A PKCE public client refreshes without a secret.
            let refreshed = try await t.client.refreshAccessToken(refreshToken: refresh, appKey: DropboxTestServer.appKey, appSecret: nil)
            _ = try await t.client.currentAccount(accessToken: refreshed.accessToken)
        }
    }

    @Test("PKCE values follow RFC 7636")
    func pkceValues() {
        // RFC 7636 appendix B.
        #expect(PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk").challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        let first = PKCE.generate()
        #expect(first.verifier.count == 64)
        #expect(first.verifier.allSatisfy { unreserved.contains($0) })
        #expect(first.challenge.count == 43)
        #expect(!first.challenge.contains("=") && !first.challenge.contains("+") && !first.challenge.contains("/"))
        #expect(first.challenge == PKCE.challenge(for: first.verifier))
        #expect(PKCE.generate().verifier != first.verifier)
    }

    @Test("authorize URL carries the PKCE code flow parameters, escaped")
    func authorizeURL() {
        let client = DropboxClient(httpClient: .shared, endpoints: .production, logger: .init(label: "test"))
        let url = client.authorizeURL(appKey: "key123", codeChallenge: "abc-_", state: "s t&a", redirectURI: "http://localhost:53682/cb")
        #expect(url == "https://www.dropbox.com/oauth2/authorize?client_id=key123&response_type=code&code_challenge=abc-_"
            + "&code_challenge_method=S256&token_access_type=offline&state=s%20t%26a&redirect_uri=http%3A%2F%2Flocalhost%3A53682%2Fcb")
        #expect(client.authorizeURL(appKey: "k", codeChallenge: "c", state: nil, redirectURI: nil)
            == "https://www.dropbox.com/oauth2/authorize?client_id=k&response_type=code&code_challenge=c&code_challenge_method=S256&token_access_type=offline")
    }
}
