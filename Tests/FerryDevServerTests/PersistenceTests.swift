import FerryTestSupport
import Foundation
import Testing
@testable import FerryDevServer

@Suite("Restarts", .tags(.fast))
struct PersistenceTests {
    @Test("a restarted server keeps accounts, refresh tokens and files")
    func restart() async throws {
        let storage = DevServerHarness.temporaryStorage()
        defer { try? FileManager.default.removeItem(atPath: storage) }
        let data = Array("kept across restarts".utf8)
        var refresh = ""
        var before: [String: Any] = [:]
        try await DevServerHarness.run(storage: storage) { h in
            refresh = h.server.issueRefreshToken(account: "frank")
            let token = try await h.accessToken(account: "frank")
            before = try await h.upload("/Keep/x.txt", data, token: token).json
            #expect(before["size"] as? Int == data.count)
        }
        try await DevServerHarness.run(storage: storage) { h in
            let exchanged = try await h.tokenRequest([("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", DevServerHarness.appKey), ("client_secret", h.appSecret)])
            #expect(exchanged.status == 200)
            let token = try #require(exchanged.json["access_token"] as? String)
            let meta = try await h.rpc("files/get_metadata", token: token, #"{"path":"/keep/X.TXT"}"#)
            #expect(meta.status == 200)
            #expect(meta.json["id"] as? String == before["id"] as? String)
            #expect(meta.json["content_hash"] as? String == before["content_hash"] as? String)
            #expect(meta.json["path_display"] as? String == "/Keep/x.txt")
            #expect(try await h.download(#"{"path":"/Keep/x.txt"}"#, token: token).body == data)
        }
    }

    @Test("seeded files come back after a restart, whether or not their bytes were ever read")
    func seededFilesSurvive() async throws {
        let storage = DevServerHarness.temporaryStorage()
        defer { try? FileManager.default.removeItem(atPath: storage) }
        var hashes: [String: String] = [:]
        try await DevServerHarness.run(storage: storage) { h in
            let token = try await h.accessToken(account: "gina")
            #expect(try h.server.seedFiles(account: "gina", folder: "/Seeded", count: 3, size: 64) == 3)
            let read = try await h.download(#"{"path":"/seeded/file-00001.bin"}"#, token: token)
            #expect(read.text.hasPrefix("00001 /Seeded/file-00001.bin\n"))
            #expect(FileManager.default.fileExists(atPath: h.storage + "/gina/Seeded/file-00001.bin"), "written when first read")
            #expect(!FileManager.default.fileExists(atPath: h.storage + "/gina/Seeded/file-00002.bin"), "not before")
            let listing = try await h.rpc("files/list_folder", token: token, #"{"path":"/seeded"}"#)
            for entry in listing.json["entries"] as? [[String: Any]] ?? [] {
                hashes[entry["name"] as? String ?? ""] = entry["content_hash"] as? String
            }
            // Overwriting a seeded file replaces it for good.
            _ = try await h.upload("/Seeded/file-00000.bin", Array("mine".utf8), token: token, mode: "overwrite")
        }
        #expect(hashes.count == 3)
        try await DevServerHarness.run(storage: storage) { h in
            let token = try await h.accessToken(account: "gina")
            let listing = try await h.rpc("files/list_folder", token: token, #"{"path":"/seeded"}"#)
            let entries = try #require(listing.json["entries"] as? [[String: Any]])
            #expect(entries.count == 3)
            for entry in entries where entry["name"] as? String != "file-00000.bin" {
                #expect(entry["content_hash"] as? String == hashes[entry["name"] as? String ?? ""])
            }
            #expect(try await h.download(#"{"path":"/seeded/file-00000.bin"}"#, token: token).text == "mine")
            let unread = try await h.download(#"{"path":"/seeded/file-00002.bin"}"#, token: token)
            #expect(unread.body.count == 64)
            #expect(unread.text.hasPrefix("00002 /Seeded/file-00002.bin\n"))
        }
    }
}
