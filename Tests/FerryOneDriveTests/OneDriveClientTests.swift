import AsyncHTTPClient
import FerryDevServer
import FerryHTTP
import FerryOneDrive
import FerryTestSupport
import Foundation
import NIOCore
import Testing

/// The client against the dev server's Graph emulation: the identity platform's token endpoint, items by path and id,
/// children paging, ranged downloads, simple uploads and upload sessions (resumed from `nextExpectedRanges`), and
/// throttling.
@Suite(.tags(.fast))
struct OneDriveClientTests {
    @Test("refresh grants an access token (and, with offline_access, a new refresh token); a revoked one is invalid_grant; a wrong secret invalid_client")
    func tokens() async throws {
        try await OneDriveTestServer.run { s in
            let refresh = s.server.issueOneDriveRefreshToken(account: "alice")
            let grant = try await s.client.refreshAccessToken(refreshToken: refresh, clientID: OneDriveTestServer.clientID, clientSecret: nil)
            #expect(!grant.accessToken.isEmpty && grant.refreshToken != nil && (grant.expiresIn ?? 0) > 0)
            #expect(!"\(grant)".contains(grant.accessToken), "a grant's description hides its tokens")
            let root = try await s.client.item(path: "/", accessToken: grant.accessToken)
            #expect(root.isFolder)

            s.server.revokeOneDriveRefreshToken(refresh)
            await #expect(throws: OneDriveError.self) {
                do {
                    _ = try await s.client.refreshAccessToken(refreshToken: refresh, clientID: OneDriveTestServer.clientID, clientSecret: nil)
                } catch let error as OneDriveError {
                    #expect(error.code == .invalidGrant)
                    #expect(!error.description.contains(refresh), "the refresh token is not in the error")
                    throw error
                }
            }
            let other = s.server.issueOneDriveRefreshToken(account: "alice")
            do {
                _ = try await s.client.refreshAccessToken(refreshToken: other, clientID: OneDriveTestServer.clientID, clientSecret: "wrong-secret")
                Issue.record("a wrong client secret was taken")
            } catch let error as OneDriveError {
                #expect(error.code == .invalidClient)
                #expect(!error.description.contains("wrong-secret"))
            }
            await #expect(throws: OneDriveError.self) { _ = try await s.client.item(path: "/", accessToken: "not-a-token") }
        }
    }

    @Test("a small file goes up in one PUT (folders made on the way), is found by path and id, and its quickXorHash is ours")
    func simpleUpload() async throws {
        try await OneDriveTestServer.run { s in
            let token = try await s.accessToken()
            let data = OneDriveTestServer.bytes(5000)
            let item = try await s.client.uploadSmall(
                path: "/Photos/2025/a b#c.jpg", body: .bytes(ByteBuffer(bytes: data)), conflict: .fail, accessToken: token)
            #expect(item.name == "a b#c.jpg" && item.size == 5000)
            #expect(item.quickXorHash == QuickXorHash.hash(data), "the server's hash (its own implementation) equals the client's")
            let byPath = try await s.client.item(path: "/Photos/2025/a b#c.jpg", accessToken: token)
            #expect(byPath.id == item.id && byPath.parentPath == "/drive/root:/Photos/2025")
            #expect(try await s.client.item(id: item.id, accessToken: token).name == "a b#c.jpg")
            do {
                _ = try await s.client.uploadSmall(path: "/Photos/2025/a b#c.jpg", body: .bytes(ByteBuffer(bytes: [1])), conflict: .fail, accessToken: token)
                Issue.record("conflictBehavior=fail replaced a file")
            } catch let error as OneDriveError {
                #expect(error.code == .conflict && error.reason == "nameAlreadyExists")
            }
            let renamed = try await s.client.uploadSmall(path: "/Photos/2025/a b#c.jpg", body: .bytes(ByteBuffer(bytes: [1])), conflict: .rename, accessToken: token)
            #expect(renamed.name == "a b#c 1.jpg")
            let replaced = try await s.client.uploadSmall(path: "/Photos/2025/a b#c.jpg", body: .bytes(ByteBuffer(bytes: [2, 3])), conflict: .replace, accessToken: token)
            #expect(replaced.id == item.id && replaced.size == 2 && replaced.cTag != item.cTag)
            do {
                _ = try await s.client.item(path: "/nothing/here", accessToken: token)
                Issue.record("a missing path was found")
            } catch let error as OneDriveError {
                #expect(error.code == .notFound)
            }
        }
    }

    @Test("children come in pages linked by @odata.nextLink; a nextLink to another host is refused")
    func childrenPaging() async throws {
        try await OneDriveTestServer.run { s in
            let token = try await s.accessToken()
            for index in 0..<7 { try s.server.putOneDriveFile(account: "alice", path: "/Many/f\(index).txt", bytes: [UInt8(index)]) }
            let folder = try await s.client.item(path: "/Many", accessToken: token)
            var names = [String]()
            var next: String?
            var pages = 0
            repeat {
                let page = try await s.client.children(of: folder.id, pageSize: 3, nextLink: next, accessToken: token)
                names += page.items.map(\.name)
                next = page.nextLink
                pages += 1
            } while next != nil
            #expect(pages == 3 && names == (0..<7).map { "f\($0).txt" })
            do {
                _ = try await s.client.children(of: folder.id, nextLink: "https://evil.example/v1.0/steal", accessToken: token)
                Issue.record("a foreign nextLink was followed")
            } catch let error as OneDriveError {
                #expect(error.code == .invalidResponse)
            }
        }
    }

    @Test("downloads: whole, and from an offset with Range (206); past the end is rangeNotSatisfiable")
    func downloads() async throws {
        try await OneDriveTestServer.run { s in
            let token = try await s.accessToken()
            let data = OneDriveTestServer.bytes(100_000, seed: 3)
            let item = try #require(OneDriveItem(json: try s.server.putOneDriveFile(account: "alice", path: "/d.bin", bytes: data)))
            #expect(try await OneDriveTestServer.collect(try await s.client.download(id: item.id, accessToken: token)) == data)
            let tail = try await s.client.download(id: item.id, rangeStart: 60_000, accessToken: token)
            #expect(tail.status == 206 && tail.contentRangeStart == 60_000)
            #expect(try await OneDriveTestServer.collect(tail) == Array(data[60_000...]))
            do {
                _ = try await s.client.download(id: item.id, rangeStart: 100_000, accessToken: token)
                Issue.record("a range past the end was served")
            } catch let error as OneDriveError {
                #expect(error.code == .rangeNotSatisfiable)
            }
        }
    }

    @Test("an upload session takes 320 KiB ranges (202 with nextExpectedRanges), tells where it stands after a break, and stores the file with the last range")
    func session() async throws {
        try await OneDriveTestServer.run { s in
            let token = try await s.accessToken()
            let unit = OneDriveClient.rangeGranularity
            let data = OneDriveTestServer.bytes(3 * unit + 1234, seed: 9)
            let session = try await s.client.createUploadSession(path: "/Big/video.mov", conflict: .fail, modified: "2024-01-02T03:04:05Z", accessToken: token)
            #expect(session.nextExpected == [0])
            #expect(!session.uploadURL.contains(token), "the session URL carries no access token")
            let first = try await s.client.uploadRange(
                session: session.uploadURL, body: .bytes(ByteBuffer(bytes: data[0..<unit])), start: 0, end: Int64(unit), total: Int64(data.count))
            #expect(first == .incomplete(nextExpected: [Int64(unit)]))
            // Another machine, after a crash, asks the session.
            let status = try await s.client.uploadSessionStatus(session: session.uploadURL)
            #expect(status.nextExpected == [Int64(unit)])
            // A range the session has already is refused (416), a range not a multiple of 320 KiB (but the last) too.
            do {
                _ = try await s.client.uploadRange(
                    session: session.uploadURL, body: .bytes(ByteBuffer(bytes: data[0..<unit])), start: 0, end: Int64(unit), total: Int64(data.count))
                Issue.record("an overlapping range was taken")
            } catch let error as OneDriveError {
                #expect(error.code == .rangeNotSatisfiable)
            }
            do {
                _ = try await s.client.uploadRange(
                    session: session.uploadURL, body: .bytes(ByteBuffer(bytes: data[unit..<(unit + 1000)])), start: Int64(unit), end: Int64(unit + 1000),
                    total: Int64(data.count))
                Issue.record("a range not a multiple of 320 KiB was taken")
            } catch let error as OneDriveError {
                #expect(error.code == .badRequest)
            }
            let rest = try await s.client.uploadRange(
                session: session.uploadURL, body: .bytes(ByteBuffer(bytes: data[unit...])), start: Int64(unit), end: Int64(data.count),
                total: Int64(data.count))
            guard case .complete(let item) = rest else {
                Issue.record("the last range did not complete the upload: \(rest)")
                return
            }
            #expect(item.size == Int64(data.count) && item.quickXorHash == QuickXorHash.hash(data) && item.modified == "2024-01-02T03:04:05Z")
            #expect(s.server.oneDriveFile(account: "alice", path: "/Big/video.mov") == data, "the bytes stored")
            // Done: the session is gone.
            do {
                _ = try await s.client.uploadSessionStatus(session: session.uploadURL)
                Issue.record("a completed session still answered")
            } catch let error as OneDriveError {
                #expect(error.code == .sessionExpired)
            }
        }
    }

    @Test("an expired session is sessionExpired; a session URL neither https nor on the account's host is refused before any byte goes")
    func expiredAndForeignSessions() async throws {
        try await OneDriveTestServer.run { s in
            let token = try await s.accessToken()
            let session = try await s.client.createUploadSession(path: "/x.bin", conflict: .replace, modified: nil, accessToken: token)
            #expect(s.server.expireOneDriveSessions() == 1)
            do {
                _ = try await s.client.uploadRange(session: session.uploadURL, body: .bytes(ByteBuffer(bytes: [1])), start: 0, end: 1, total: 1)
                Issue.record("an expired session took a range")
            } catch let error as OneDriveError {
                #expect(error.code == .sessionExpired)
            }
            do {
                _ = try await s.client.uploadRange(session: "http://evil.example/up/1", body: .bytes(ByteBuffer(bytes: [1])), start: 0, end: 1, total: 1)
                Issue.record("a foreign session URL was used")
            } catch let error as OneDriveError {
                #expect(error.code == .badRequest && !error.description.contains("evil.example/up/1"))
            }
        }
    }

    @Test("429 and 503 with Retry-After are rateLimited with the wait; a plain 5xx is a server error")
    func throttling() async throws {
        try await OneDriveTestServer.run { s in
            let token = try await s.accessToken()
            s.server.throttleOneDrive(count: 1, status: 429, retryAfter: 7)
            do {
                _ = try await s.client.item(path: "/", accessToken: token)
                Issue.record("not throttled")
            } catch let error as OneDriveError {
                #expect(error.code == .rateLimited && error.retryAfter == 7 && error.isRetryable)
            }
            s.server.throttleOneDrive(count: 1, status: 503, retryAfter: 3)
            do {
                _ = try await s.client.item(path: "/", accessToken: token)
                Issue.record("not throttled")
            } catch let error as OneDriveError {
                #expect(error.code == .rateLimited && error.retryAfter == 3 && error.httpStatus == 503)
            }
            #expect(try await s.client.item(path: "/", accessToken: token).isFolder)
            #expect(s.server.oneDriveStats().throttled == 2)
        }
    }

    @Test("the server's fault injection and latency reach the Graph routes: rate limits are 429 or 503 with Retry-After, failures 5xx")
    func faultInjection() async throws {
        try await OneDriveTestServer.run { s in
            let token = try await s.accessToken()
            s.server.updateFaults(FaultConfiguration(rateLimitRate: 1, retryAfterSeconds: 2, routes: ["onedrive/item"]))
            for _ in 0..<2 {
                do {
                    _ = try await s.client.item(path: "/", accessToken: token)
                    Issue.record("not rate limited")
                } catch let error as OneDriveError {
                    #expect(error.code == .rateLimited && error.retryAfter == 2 && [429, 503].contains(error.httpStatus ?? 0))
                }
            }
            s.server.updateFaults(FaultConfiguration(failureRate: 1, routes: ["onedrive/children"]))
            do {
                _ = try await s.client.children(of: try await s.client.item(path: "/", accessToken: token).id, accessToken: token)
                Issue.record("no failure injected")
            } catch let error as OneDriveError {
                #expect(error.code == .serverError || error.code == .rateLimited, "\(error)")
            }
            s.server.updateFaults(.none)
        }
    }

    @Test("the authorize URL asks for the code flow with PKCE S256 and offline_access; the code is exchanged once with its verifier")
    func authorizationCode() async throws {
        try await OneDriveTestServer.run { s in
            let pkce = OAuthPKCE.generate()
            let redirect = "http://127.0.0.1:53683/"
            let url = s.client.authorizeURL(clientID: OneDriveTestServer.clientID, codeChallenge: pkce.challenge, state: "st8", redirectURI: redirect)
            #expect(url.hasPrefix(s.baseURL + "/common/oauth2/v2.0/authorize?") && url.contains("offline_access") && url.contains("code_challenge_method=S256"))
            let answer = try await s.http.execute(HTTPClientRequest(url: url), timeout: .seconds(60))
            #expect(answer.status.code == 302)
            let location = try #require(answer.headers.first(name: "Location"))
            let code = try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "code" }?.value)
            #expect(URLComponents(string: location)?.queryItems?.first { $0.name == "state" }?.value == "st8")
            do {
                _ = try await s.client.exchangeAuthorizationCode(
                    code, codeVerifier: OAuthPKCE.generate().verifier, clientID: OneDriveTestServer.clientID, clientSecret: nil, redirectURI: redirect)
                Issue.record("a wrong verifier was taken")
            } catch let error as OneDriveError {
                #expect(error.code == .invalidGrant)
            }
            // The failed exchange used the code up; a new one with the right verifier works.
            let again = try await s.http.execute(HTTPClientRequest(url: url), timeout: .seconds(60))
            let second = try #require(URLComponents(string: again.headers.first(name: "Location") ?? "")?.queryItems?.first { $0.name == "code" }?.value)
            let grant = try await s.client.exchangeAuthorizationCode(
                second, codeVerifier: pkce.verifier, clientID: OneDriveTestServer.clientID, clientSecret: nil, redirectURI: redirect)
            #expect(grant.refreshToken != nil)
        }
    }
}
