import FerryCore
import FerryHTTP
import FerryTestSupport
import Foundation
import NIOCore
import NIOHTTP1
import Testing
@testable import FerryDropbox

@Suite("Secrets never leak", .tags(.fast))
struct SecretTests {
    /// Every way a value can be turned into text.
    private func renderings(_ value: Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        return [String(describing: value), String(reflecting: value), dumped, "\(value)"]
    }

    @Test("DropboxTokenGrant and PKCE hide their secrets in every rendering")
    func descriptions() {
        let grant = DropboxTokenGrant(accessToken: "sl.ACCESS-SECRET-1234", expiresIn: 14400, refreshToken: "REFRESH-SECRET-5678",
                                      accountID: "dbid:abc", scope: "files.content.read")
        for text in renderings(grant) {
            #expect(!text.contains("ACCESS-SECRET"))
            #expect(!text.contains("REFRESH-SECRET"))
        }
        #expect(grant.description.contains("dbid:abc"))
        let pkce = PKCE.generate()
        for text in renderings(pkce) {
            #expect(!text.contains(pkce.verifier))
            #expect(text.contains(pkce.challenge))
        }
    }

    @Test("secrets echoed by a server are scrubbed, also form-encoded and before truncation")
    func scrubbing() {
        let token = "sl.u.AbCdEf+/=GhIjKl0123456789"
        let echoed = DropboxError.fromResponse(
            status: 400, headers: HTTPHeaders(), body: Array("Bad token \(token) and \(FormEncoding.escape(token))".utf8), oauth: false, secrets: [token])
        #expect(!echoed.description.contains(token))
        #expect(!echoed.description.contains(FormEncoding.escape(token)))
        #expect(echoed.description.contains("[REDACTED]"))

        // A secret across the truncation point must not survive as a prefix.
        let padded = String(repeating: "a", count: DropboxError.summaryLimit - 10) + token
        let cut = DropboxError.fromResponse(status: 500, headers: HTTPHeaders(), body: Array(padded.utf8), oauth: false, secrets: [token])
        #expect(!cut.description.contains(String(token.prefix(8))))

        let oauth = DropboxError.fromResponse(
            status: 400, headers: HTTPHeaders(), body: Array(#"{"error":"invalid_grant","error_description":"code \#(token) expired"}"#.utf8),
            oauth: true, secrets: [token])
        #expect(oauth.code == .invalidGrant)
        #expect(!oauth.description.contains(token))

        let header = DropboxClient.transportError(HTTPClientErrorProbe.headerValue(token), secrets: [token])
        #expect(!header.description.contains(token))
    }

    @Test("errors and logs of real calls never contain the tokens, secrets or codes used")
    func realCalls() async throws {
        let appSecret = "app-secret-value-42"
        try await DropboxTestServer.run(appSecret: appSecret, accessTokenLifetime: 3600) { t in
            let refresh = t.server.issueRefreshToken(account: "dave")
            let grant = try await t.client.refreshAccessToken(refreshToken: refresh, appKey: DropboxTestServer.appKey, appSecret: appSecret)
            let pkce = PKCE.generate()
            let code = try await t.get(t.client.authorizeURL(appKey: DropboxTestServer.appKey, codeChallenge: pkce.challenge, state: "st", redirectURI: nil)).text
            var errors: [DropboxError] = []
            func capture(_ operation: () async throws -> Void) async {
                do { try await operation() } catch let error as DropboxError { errors.append(error) } catch {}
            }
            // A verifier that differs for sure: one that starts with "x" (1 in 64) must not stay the same.
            let wrongVerifier = (pkce.verifier.hasPrefix("x") ? "y" : "x") + pkce.verifier.dropFirst()
            await capture { _ = try await t.client.exchangeAuthorizationCode(code, codeVerifier: wrongVerifier, appKey: DropboxTestServer.appKey, appSecret: appSecret, redirectURI: nil) }
            await capture { _ = try await t.client.refreshAccessToken(refreshToken: refresh + "x", appKey: DropboxTestServer.appKey, appSecret: appSecret) }
            await capture { _ = try await t.client.refreshAccessToken(refreshToken: refresh, appKey: DropboxTestServer.appKey, appSecret: appSecret + "x") }
            await capture { _ = try await t.client.currentAccount(accessToken: grant.accessToken + "x") }
            await capture { _ = try await t.client.currentAccount(accessToken: grant.accessToken + "\r\nX-Evil: 1") }
            await capture { _ = try await t.client.rpc("files/get_metadata", .object(["path": .string("/")]), accessToken: grant.accessToken) }
            await capture { _ = try await t.client.download(path: "/missing", rangeStart: nil, accessToken: grant.accessToken) }
            t.server.configuration.clock.advance(by: 3601)   // past the token's lifetime, without sleeping
            await capture { _ = try await t.client.currentAccount(accessToken: grant.accessToken) }
            #expect(errors.count == 8)
            #expect(errors.map(\.code).contains(.expiredAccessToken))

            let secrets = [refresh, grant.accessToken, appSecret, code, pkce.verifier]
            for error in errors {
                for text in [error.description, String(reflecting: error), error.summary] {
                    for secret in secrets { #expect(!text.contains(secret), "\(error.code) leaks a secret") }
                }
            }
            let logs = t.logs.all
            #expect(!logs.isEmpty)
            for line in logs {
                for secret in secrets { #expect(!line.contains(secret), "a log line leaks a secret") }
            }
        }
    }
}
