import FerryTestSupport
import Foundation
import Testing
@testable import FerryDevServer

@Suite("list_folder", .tags(.fast))
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
            #expect(garbage.status == 400, "a garbage cursor is a bad request, not a reset clients would restart on")
            #expect(String(decoding: garbage.body, as: UTF8.self).contains("Invalid \"cursor\" parameter"))
            let cursor = try #require(root.json["cursor"] as? String)
            h.server.resetCursors(account: "alice")
            let outdated = try await h.rpc("files/list_folder/continue", token: token, #"{"cursor":"\#(cursor)"}"#)
            #expect(outdated.status == 409)
            #expect(outdated.errorSummary.hasPrefix("reset/"))
        }
    }

    @Test("a 20,000-file folder is seeded and listed completely through list_folder/continue")
    func largeFolder() async throws {
        try await DevServerHarness.run { h in
            let token = try await h.accessToken()
            _ = try await h.upload("/Parent/small.txt", [1], token: token)
            var started = ContinuousClock.now
            try h.server.seedFiles(account: "alice", folder: "/Parent/huge", count: 20_000, size: 1024)
            print("seeded 20,000 files of 1 KiB in \(ContinuousClock.now - started)")

            // Timed: the requests and parsing each page once; checks come after.
            started = ContinuousClock.now
            var statuses: [Int] = []
            var entries: [[String: Any]] = []
            var page = try await h.rpc("files/list_folder", token: token, #"{"path":"/parent/huge","limit":1000}"#)
            while true {
                statuses.append(page.status)
                let json = page.json
                entries += json["entries"] as? [[String: Any]] ?? []
                guard json["has_more"] as? Bool == true, let cursor = json["cursor"] as? String, statuses.count < 100 else { break }
                page = try await h.rpc("files/list_folder/continue", token: token, #"{"cursor":"\#(cursor)"}"#)
            }
            let pages = statuses.count
            print("listed 20,000 entries in \(pages) pages of 1000 in \(ContinuousClock.now - started)")
            #expect(statuses.allSatisfy { $0 == 200 })
            let names = entries.compactMap { $0["name"] as? String }
            let hashes = Set(entries.compactMap { $0["content_hash"] as? String })
            #expect(pages == 20)
            #expect(names.count == 20_000)
            let expectedNames: Set<String> = Set((0..<20_000).map { (index: Int) -> String in
                let digits = String(index)
                return "file-" + String(repeating: "0", count: 5 - digits.count) + digits + ".bin"
            })
            #expect(Set(names) == expectedNames)
            #expect(hashes.count == 20_000, "every file has distinct content")
            let sample = try await h.download(#"{"path":"/parent/huge/file-01234.bin"}"#, token: token)
            #expect(sample.body.count == 1024)
            #expect(sample.text.hasPrefix("01234 /Parent/huge/file-01234.bin\n"))

            // A non-recursive listing of the parent skips the huge subtree; a recursive one has it all.
            let parent = try await h.rpc("files/list_folder", token: token, #"{"path":"/parent"}"#)
            #expect(Set((parent.json["entries"] as? [[String: Any]])?.compactMap { $0["name"] as? String } ?? []) == ["huge", "small.txt"])
            var recursiveCount = 0
            var recursive = try await h.rpc("files/list_folder", token: token, #"{"path":"/parent","recursive":true,"limit":2000}"#)
            while true {
                recursiveCount += (recursive.json["entries"] as? [Any])?.count ?? 0
                guard recursive.json["has_more"] as? Bool == true, let cursor = recursive.json["cursor"] as? String else { break }
                recursive = try await h.rpc("files/list_folder/continue", token: token, #"{"cursor":"\#(cursor)"}"#)
            }
            #expect(recursiveCount == 20_003, "the folder itself, huge/, small.txt and 20,000 files")

            // A cursor taken mid-listing goes stale after a cursor reset.
            let first = try await h.rpc("files/list_folder", token: token, #"{"path":"/parent/huge","limit":1000}"#)
            let cursor = try #require(first.json["cursor"] as? String)
            #expect(!cursor.contains("huge") && !cursor.contains("alice"), "cursors are opaque")
            h.server.resetCursors(account: "alice")
            let stale = try await h.rpc("files/list_folder/continue", token: token, #"{"cursor":"\#(cursor)"}"#)
            #expect(stale.status == 409)
            #expect(stale.errorTag == "reset")
        }
    }
}
