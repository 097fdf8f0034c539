import FerryDevServer
import FerryHTTP
import FerryTestSupport
import Foundation
import Testing
@testable import FerryGoogleDrive

@Suite("Google OAuth against the dev server", .tags(.fast))
struct AuthTests {
    @Test("a refresh token gives an access token; a revoked one is invalid_grant, a wrong secret invalid_client; no secret is logged")
    func refreshGrant() async throws {
        try await GoogleDriveTestServer.run { h in
            let refresh = h.server.issueGoogleDriveRefreshToken(account: "alice")
            let grant = try await h.client.refreshAccessToken(
                refreshToken: refresh, clientID: GoogleDriveTestServer.clientID, clientSecret: GoogleDriveTestServer.clientSecret)
            #expect(grant.accessToken.hasPrefix("ya29."))
            #expect((grant.expiresIn ?? 0) > 0 && (grant.expiresIn ?? 0) <= 3600)
            #expect(!"\(grant)".contains(grant.accessToken))
            let root = try await h.client.getFile(id: "root", accessToken: grant.accessToken)
            #expect(root.isFolder)

            await #expect { try await h.client.refreshAccessToken(refreshToken: refresh, clientID: GoogleDriveTestServer.clientID, clientSecret: "wrong") }
                throws: { ($0 as? GoogleDriveError)?.code == .invalidClient }
            h.server.revokeGoogleDriveRefreshToken(refresh)
            await #expect {
                try await h.client.refreshAccessToken(refreshToken: refresh, clientID: GoogleDriveTestServer.clientID, clientSecret: GoogleDriveTestServer.clientSecret)
            } throws: { error in
                let error = error as? GoogleDriveError
                return error?.code == .invalidGrant && error?.reason == "invalid_grant" && !"\(error!)".contains(refresh)
            }
            await #expect { try await h.client.getFile(id: "root", accessToken: "not-a-token") } throws: {
                ($0 as? GoogleDriveError)?.code == .unauthorized
            }
            let logged = h.logs.all.joined(separator: "\n")
            for secret in [refresh, grant.accessToken, GoogleDriveTestServer.clientSecret] { #expect(!logged.contains(secret)) }
        }
    }

    @Test("installed-app flow: the authorize page redirects to the loopback address with a code that PKCE redeems once")
    func installedAppFlow() async throws {
        try await GoogleDriveTestServer.run { h in
            let pkce = OAuthPKCE.generate()
            let redirect = "http://127.0.0.1:9/callback"
            let url = h.client.authorizeURL(
                clientID: GoogleDriveTestServer.clientID, codeChallenge: pkce.challenge, state: "s-1", redirectURI: redirect)
            #expect(url.hasPrefix(h.baseURL + "/o/oauth2/v2/auth?"))
            #expect(url.contains("code_challenge_method=S256") && url.contains("access_type=offline"))
            let response = try await h.http.execute(.init(url: url), timeout: .seconds(60))
            #expect(response.status.code == 302)
            let location = try #require(response.headers.first(name: "Location"))
            #expect(location.hasPrefix(redirect + "?code="))
            #expect(location.contains("state=s-1"))
            let query = URLComponents(string: location)?.queryItems ?? []
            let code = try #require(query.first { $0.name == "code" }?.value)

            await #expect {
                try await h.client.exchangeAuthorizationCode(
                    code, codeVerifier: OAuthPKCE.generate().verifier, clientID: GoogleDriveTestServer.clientID,
                    clientSecret: GoogleDriveTestServer.clientSecret, redirectURI: redirect)
            } throws: { ($0 as? GoogleDriveError)?.code == .invalidGrant }

            // A code is single use: the failed exchange above spent it, so ask again.
            let again = try await h.http.execute(.init(url: url), timeout: .seconds(60))
            let secondCode = try #require(URLComponents(string: again.headers.first(name: "Location") ?? "")?.queryItems?.first { $0.name == "code" }?.value)
            let grant = try await h.client.exchangeAuthorizationCode(
                secondCode, codeVerifier: pkce.verifier, clientID: GoogleDriveTestServer.clientID,
                clientSecret: GoogleDriveTestServer.clientSecret, redirectURI: redirect)
            let refresh = try #require(grant.refreshToken)
            let refreshed = try await h.client.refreshAccessToken(
                refreshToken: refresh, clientID: GoogleDriveTestServer.clientID, clientSecret: GoogleDriveTestServer.clientSecret)
            #expect(try await h.client.getFile(id: "root", accessToken: refreshed.accessToken).isFolder)
        }
    }
}
