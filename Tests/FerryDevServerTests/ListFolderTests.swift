import Foundation
import Testing
@testable import FerryDevServer

@Suite("list_folder")
struct ListFolderTests {
    @Test("paging 2,500 entries with limit 1000, then following changes")
    func paging() async throws {
        try await DevServerHarness.run { h in
            let token = try await h.accessToken()
            #expect(try h.server.seedFiles(account: "alice", folder: "/Big", count: 2500, size: 8) == 2500)

            var names: [String] = []
            var pageSizes: [Int] = []
            var page = try await h.rpc("files/list_folder", token: token, #"{"path":"/big","limit":1000}"#)
            #expect(page.status == 200)
            while true {
                let entries = try #require(page.json["entries"] as? [[String: Any]])
                pageSizes.append(entries.count)
                for entry in entries {
                    #expect(entry[".tag"] as? String == "file")
                    names.append(try #require(entry["name"] as? String))
                }
                guard page.json["has_more"] as? Bool == true else { break }
                let cursor = try #require(page.json["cursor"] as? String)
                page = try await h.rpc("files/list_folder/continue", token: token, #"{"cursor":"\#(cursor)"}"#)
                #expect(page.status == 200)
            }
            #expect(pageSizes == [1000, 1000, 500])
            #expect(names.count == 2500)
            #expect(Set(names).count == 2500)
            #expect(names.first == "file-00000.bin")

            // The final cursor now follows changes: nothing yet, then exactly the new file.
            let finalCursor = try #require(page.json["cursor"] as? String)
            let idle = try await h.rpc("files/list_folder/continue", token: token, #"{"cursor":"\#(finalCursor)"}"#)
            #expect((idle.json["entries"] as? [Any])?.count == 0)
            #expect(idle.json["has_more"] as? Bool == false)
            _ = try await h.upload("/big/new.txt", Array("new".utf8), token: token)
            let idleCursor = try #require(idle.json["cursor"] as? String)
            let changes = try await h.rpc("files/list_folder/continue", token: token, #"{"cursor":"\#(idleCursor)"}"#)
            let changed = try #require(changes.json["entries"] as? [[String: Any]])
            #expect(changed.count == 1)
            #expect(changed.first?["path_lower"] as? String == "/big/new.txt")
        }
    }

    @Test("root listing, recursive listing, bad paths and reset cursors")
    func pathsAndErrors() async throws {
        try await DevServerHarness.run { h in
            let token = try await h.accessToken()
            _ = try await h.upload("/A/b/c.txt", [1], token: token)
            _ = try await h.upload("/top.txt", [2], token: token)

            let root = try await h.rpc("files/list_folder", token: token, #"{"path":""}"#)
            let rootNames = (root.json["entries"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
            #expect(Set(rootNames ?? []) == ["A", "top.txt"])
            let folder = (root.json["entries"] as? [[String: Any]])?.first { $0["name"] as? String == "A" }
            #expect(folder?[".tag"] as? String == "folder")

            let recursive = try await h.rpc("files/list_folder", token: token, #"{"path":"/a","recursive":true}"#)
            let paths = (recursive.json["entries"] as? [[String: Any]])?.compactMap { $0["path_lower"] as? String }
            #expect(paths == ["/a", "/a/b", "/a/b/c.txt"], "folders come before their contents")

            let slash = try await h.rpc("files/list_folder", token: token, #"{"path":"/"}"#)
            #expect(slash.status == 400)
            let limit = try await h.rpc("files/list_folder", token: token, #"{"path":"","limit":0}"#)
            #expect(limit.status == 400)
            let notFound = try await h.rpc("files/list_folder", token: token, #"{"path":"/missing"}"#)
            #expect(notFound.status == 409)
            #expect(notFound.errorSummary.hasPrefix("path/not_found/"))
            let notFolder = try await h.rpc("files/list_folder", token: token, #"{"path":"/top.txt"}"#)
            #expect(notFolder.errorSummary.hasPrefix("path/not_folder/"))
            let badJSON = try await h.rpc("files/list_folder", token: token, "{nope")
            #expect(badJSON.status == 400)

            let garbage = try await h.rpc("files/list_folder/continue", token: token, #"{"cursor":"garbage"}"#)
            #expect(garbage.status == 409)
            #expect(garbage.errorTag == "reset")
            let cursor = try #require(root.json["cursor"] as? String)
            h.server.resetCursors(account: "alice")
            let outdated = try await h.rpc("files/list_folder/continue", token: token, #"{"cursor":"\#(cursor)"}"#)
            #expect(outdated.status == 409)
            #expect(outdated.errorSummary.hasPrefix("reset/"))
        }
    }

    @Test("a 20,000-entry folder is seeded and listed quickly")
    func largeFolder() async throws {
        try await DevServerHarness.run { h in
            let token = try await h.accessToken()
            let started = Date()
            try h.server.seedFiles(account: "alice", folder: "/huge", count: 20_000, size: 0)
            var total = 0
            var pages = 0
            var page = try await h.rpc("files/list_folder", token: token, #"{"path":"/huge","limit":2000}"#)
            while true {
                total += (page.json["entries"] as? [Any])?.count ?? 0
                pages += 1
                guard page.json["has_more"] as? Bool == true, let cursor = page.json["cursor"] as? String, pages < 50 else { break }
                page = try await h.rpc("files/list_folder/continue", token: token, #"{"cursor":"\#(cursor)"}"#)
            }
            #expect(total == 20_000)
            #expect(pages == 10)
            #expect(Date().timeIntervalSince(started) < 60)
        }
    }
}
