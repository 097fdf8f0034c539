import FerryTestSupport
import Foundation
import Testing
@testable import FerryDevServer

@Suite("Drive emulation over HTTP", .tags(.fast))
struct GoogleDriveServerTests {
    @Test("the token endpoint: refresh grant with the client secret; wrong secret invalid_client; unknown token invalid_grant")
    func tokenEndpoint() async throws {
        try await DevServerHarness.run { h in
            let refresh = h.server.issueGoogleDriveRefreshToken(account: "alice")
            let good = try await h.googleToken([
                ("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", DevServerHarness.appKey), ("client_secret", h.appSecret),
            ])
            #expect(good.status == 200 && good.json["token_type"] as? String == "Bearer")
            #expect((good.json["access_token"] as? String)?.hasPrefix("ya29.") == true)
            let wrong = try await h.googleToken([
                ("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", DevServerHarness.appKey), ("client_secret", "nope"),
            ])
            #expect(wrong.status == 401 && wrong.json["error"] as? String == "invalid_client")
            let unknown = try await h.googleToken([
                ("grant_type", "refresh_token"), ("refresh_token", "1//nope"), ("client_id", DevServerHarness.appKey), ("client_secret", h.appSecret),
            ])
            #expect(unknown.status == 400 && unknown.json["error"] as? String == "invalid_grant")
            // A Dropbox token is no Drive token.
            let dropbox = try await h.accessToken(account: "alice")
            let refused = try await h.drive(.GET, "/drive/v3/files/root", token: dropbox)
            #expect(refused.status == 401 && DevServerHarness.reason(refused) == "authError")
            let none = try await h.request(.GET, "/drive/v3/files/root")
            #expect(none.status == 401)
        }
    }

    @Test("uploads, get, list with q and pages, patch, copy, delete, in Google's shapes")
    func files() async throws {
        try await DevServerHarness.run { h in
            let token = try await h.googleAccessToken()
            let root = try await h.drive(.GET, "/drive/v3/files/root", token: token)
            #expect(root.json["mimeType"] as? String == "application/vnd.google-apps.folder")
            let rootID = try #require(root.json["id"] as? String)
            let folder = try await h.drive(.POST, "/drive/v3/files", token: token, headers: [("Content-Type", "application/json")],
                                           body: Array(#"{"name":"Docs","mimeType":"application/vnd.google-apps.folder"}"#.utf8))
            let folderID = try #require(folder.json["id"] as? String)
            #expect(folder.json["parents"] as? [String] == [rootID])
            for index in 0..<3 {
                let made = try await h.driveMultipart(#"{"name":"same.txt","parents":["\#(folderID)"]}"#, Array("v\(index)".utf8), token: token)
                #expect(made.status == 200 && made.json["size"] as? String == "2")
            }
            let media = try await h.driveMedia([1, 2, 3], token: token)
            #expect(media.json["name"] as? String == "Untitled" && media.json["md5Checksum"] as? String == "5289df737df57326fcdd22597afb1fac")
            let query = "q=" + "name = 'same.txt' and '\(folderID)' in parents".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let first = try await h.drive(.GET, "/drive/v3/files?pageSize=2&" + query, token: token)
            #expect((first.json["files"] as? [[String: Any]])?.count == 2)
            let next = try #require(first.json["nextPageToken"] as? String)
            let second = try await h.drive(.GET, "/drive/v3/files?pageSize=2&pageToken=\(next)&" + query, token: token)
            #expect((second.json["files"] as? [[String: Any]])?.count == 1 && second.json["nextPageToken"] == nil)
            let bad = try await h.drive(.GET, "/drive/v3/files?q=name%20%3D%20x", token: token)
            #expect(bad.status == 400 && DevServerHarness.reason(bad) == "invalid")

            let id = try #require(media.json["id"] as? String)
            let renamed = try await h.drive(.PATCH, "/drive/v3/files/\(id)?addParents=\(folderID)&removeParents=\(rootID)", token: token,
                                            headers: [("Content-Type", "application/json")], body: Array(#"{"name":"n.bin"}"#.utf8))
            #expect(renamed.json["name"] as? String == "n.bin" && renamed.json["parents"] as? [String] == [folderID])
            let copy = try await h.drive(.POST, "/drive/v3/files/\(id)/copy", token: token, body: Array("{}".utf8))
            #expect(copy.json["name"] as? String == "Copy of n.bin" && copy.json["md5Checksum"] as? String == media.json["md5Checksum"] as? String)
            #expect(try await h.drive(.DELETE, "/drive/v3/files/\(folderID)", token: token).status == 204)
            let gone = try await h.drive(.GET, "/drive/v3/files/\(id)", token: token)
            #expect(gone.status == 404 && DevServerHarness.reason(gone) == "notFound")
            let stats = h.server.googleDriveStats()
            #expect(stats.filesCreatedPerName["same.txt"] == 3 && stats.foldersCreatedPerName["Docs"] == 1 && stats.copies == 1)
            #expect(h.server.googleDriveItems(account: "alice").isEmpty, "the copy was in the deleted folder too")
        }
    }

    @Test("a resumable session: Location, 308 with Range, 404 once expired, a new revision through PATCH")
    func resumable() async throws {
        try await DevServerHarness.run { h in
            let token = try await h.googleAccessToken()
            let start = try await h.drive(.POST, "/upload/drive/v3/files?uploadType=resumable", token: token,
                                          headers: [("Content-Type", "application/json"), ("X-Upload-Content-Length", "300000")], body: Array(#"{"name":"r.bin"}"#.utf8))
            #expect(start.status == 200)
            let location = try #require(start.header("Location"))
            #expect(location.hasPrefix(h.baseURL + "/upload/drive/v3/files?uploadType=resumable&upload_id="))
            let path = String(location.dropFirst(h.baseURL.count))
            let data = (0..<300_000).map { UInt8($0 % 251) }
            let empty = try await h.request(.PUT, path, headers: [("Content-Range", "bytes */300000")], body: [])
            #expect(empty.status == 308 && empty.header("Range") == nil)
            let part = try await h.request(.PUT, path, headers: [("Content-Range", "bytes 0-262143/300000")], body: Array(data[..<262_144]))
            #expect(part.status == 308 && part.header("Range") == "bytes=0-262143")
            let wrongTotal = try await h.request(.PUT, path, headers: [("Content-Range", "bytes */1")], body: [])
            #expect(wrongTotal.status == 400)
            let last = try await h.request(.PUT, path, headers: [("Content-Range", "bytes 262144-299999/300000")], body: Array(data[262_144...]))
            #expect(last.status == 200 && last.json["size"] as? String == "300000")
            let id = try #require(last.json["id"] as? String)
            #expect(try await h.drive(.GET, "/drive/v3/files/\(id)?alt=media", token: token).body == data)

            let revision = try await h.drive(.PATCH, "/upload/drive/v3/files/\(id)?uploadType=resumable", token: token, body: [])
            let revisionPath = String(try #require(revision.header("Location")).dropFirst(h.baseURL.count))
            #expect(h.server.expireGoogleDriveSessions(account: "alice") == 2)
            let expired = try await h.request(.PUT, revisionPath, headers: [("Content-Range", "bytes */5")], body: [])
            #expect(expired.status == 404)
            #expect(h.server.googleDriveStats().sessionsExpired == 2)
        }
    }

    @Test("faults in Google's shapes: 500 backendError, the request budget as 403 userRateLimitExceeded")
    func faults() async throws {
        try await DevServerHarness.run { h in
            let token = try await h.googleAccessToken()
            h.server.updateFaults(FaultConfiguration(failureRate: 1, routes: ["drive/file"]))
            let failed = try await h.drive(.GET, "/drive/v3/files/root", token: token)
            #expect([500, 503].contains(failed.status) && DevServerHarness.reason(failed) == "backendError")
            h.server.updateFaults(FaultConfiguration(requestsPerSecond: 1, routes: ["drive/files"]))
            // Eight at once: however slow the machine, they land within the one second the budget allows one of.
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 { group.addTask { try await h.drive(.GET, "/drive/v3/files?q=trashed%20%3D%20false", token: token).status } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.contains(200) && statuses.contains(403), "\(statuses)")
            h.server.updateFaults(.none)
            #expect(h.server.stats().requestsPerRoute["drive/files"] == 8)
        }
    }

    @Test("a restarted server keeps Drive accounts, tokens and files")
    func restart() async throws {
        let storage = DevServerHarness.temporaryStorage()
        defer { try? FileManager.default.removeItem(atPath: storage) }
        var token = ""
        var id = ""
        try await DevServerHarness.run(storage: storage) { h in
            token = try await h.googleAccessToken(account: "kim")
            id = try #require(try await h.driveMultipart(#"{"name":"keep.txt"}"#, Array("kept".utf8), token: token).json["id"] as? String)
        }
        try await DevServerHarness.run(storage: storage) { h in
            let file = try await h.drive(.GET, "/drive/v3/files/\(id)", token: token)
            #expect(file.status == 200 && file.json["name"] as? String == "keep.txt")
            #expect(try await h.drive(.GET, "/drive/v3/files/\(id)?alt=media", token: token).body == Array("kept".utf8))
        }
    }
}
