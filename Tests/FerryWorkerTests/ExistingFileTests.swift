import FerryCore
import FerryTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `--ignore-existing` and `--immutable` on fetches: a file already at the target is kept, or never replaced by a
/// different one; a folder's children follow their parent. Real workers, the dev server, real PostgreSQL.
@Suite("fetches onto existing files", .tags(.postgres, .process), .serialized)
struct ExistingFileTests {
    static func fetch(_ db: TestDatabase, _ source: String, to target: String, batch: String, _ extra: [String] = []) async throws {
        let result = try await FerryProcess.run(
            ["enqueue", "fetch", source, "--to", target, "--batch", batch, "--max-attempts", "1"] + extra, databaseURL: db.url)
        #expect(result.status == 0, "\(result.stderr)")
    }

    static func finished(_ db: TestDatabase, _ batch: String) async throws -> [String: (state: String, skipped: String?)] {
        var out = [String: (String, String?)]()
        for row in try await db.query(
            "SELECT destination, state, result->>'skipped' FROM ferry.jobs WHERE batch = $1 AND source NOT LIKE 'dropbox:%/Pics'", [batch]
        ).rows {
            out[(try row.decode(String.self, at: 0) as NSString).lastPathComponent] = (try row.decode(String.self, at: 1), try row.decode(String?.self, at: 2))
        }
        return out
    }

    @Test("a URL fetch: ignore keeps a local file and downloads nothing; immutable fails on different bytes and keeps the same; replace replaces")
    func urlFetch() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("existing_url")
        let dir = try temporaryFolder("existing-url")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try await server.request("POST", "/__dev/web", json: .object(["path": .string("f/a.bin"), "size": .int(5000), "seed": .int(3)]))
        let url = server.baseURL + "/web/f/a.bin"
        let target = dir + "/a.bin"
        let worker = try TestWorker.transfers(db, name: "existing")
        defer { worker.signal(SIGTERM) }
        func run(_ batch: String, _ extra: [String]) async throws -> (state: String, skipped: String?) {
            try await Self.fetch(db, url, to: target, batch: batch, extra)
            try await eventually(timeout: .seconds(300), "batch \(batch)") { try await WorkerFixtures.batchDone(db, batch) }
            return try #require(try await Self.finished(db, batch)["a.bin"])
        }
        #expect(try await run("first", []) == ("succeeded", nil))
        let remote = try Data(contentsOf: URL(fileURLWithPath: target))
        let local = Data("edited here".utf8)
        try local.write(to: URL(fileURLWithPath: target))

        #expect(try await run("ignore", ["--ignore-existing"]) == ("succeeded", "exists"))
        #expect(FileManager.default.contents(atPath: target) == local, "left as it was")
        #expect(try await run("immutable", ["--immutable"]).state == "failed")
        let error = try await db.query("SELECT last_error FROM ferry.jobs WHERE batch = 'immutable'").rows[0].decode(String?.self, at: 0)
        #expect(error?.contains("exists with different content") == true, "\(error ?? "")")
        #expect(FileManager.default.contents(atPath: target) == local, "never replaced")
        try remote.write(to: URL(fileURLWithPath: target))
        #expect(try await run("same", ["--immutable"]) == ("succeeded", nil), "the same bytes are kept")
        try local.write(to: URL(fileURLWithPath: target))
        #expect(try await run("replace", []) == ("succeeded", nil))
        #expect(FileManager.default.contents(atPath: target) == remote, "replaced by default")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["a.bin"], "no temporary file left")
        let both = try await FerryProcess.run(["enqueue", "fetch", url, "--to", target, "--ignore-existing", "--immutable"], databaseURL: db.url)
        #expect(both.status == 64 && both.stderr.contains("contradict"), "\(both.stderr)")
    }

    @Test("a Dropbox folder fetched with --immutable: every child carries the policy; the one different local file fails, the rest arrive")
    func folderChildrenInherit() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("existing_folder")
        try await DropboxAccounts.add("box", server: server, databaseURL: db.url)
        _ = try await server.request(
            "POST", "/__dev/seed",
            json: .object(["account": .string("box"), "folder": .string("/Pics"), "count": .int(3), "size": .int(200)]))
        let dir = try temporaryFolder("existing-folder")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let names = (0..<3).map { "file-" + String(format: "%05d", $0) + ".bin" }
        try Data("mine".utf8).write(to: URL(fileURLWithPath: dir + "/" + names[1]))
        try await Self.fetch(db, "dropbox:box:/Pics", to: dir + "/", batch: "pics", ["--immutable"])
        let worker = try TestWorker.transfers(db, name: "folder")
        try await eventually(timeout: .seconds(300), "the folder") { try await WorkerFixtures.batchDone(db, "pics") }
        worker.signal(SIGTERM)
        _ = try await worker.waitForExit()
        let jobs = try await Self.finished(db, "pics")
        #expect(jobs[names[0]]?.state == "succeeded" && jobs[names[2]]?.state == "succeeded", "\(jobs)")
        #expect(jobs[names[1]]?.state == "failed", "\(jobs)")
        #expect(FileManager.default.contents(atPath: dir + "/" + names[1]) == Data("mine".utf8))
        let carrying = try await count(
            db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'pics' AND spec->>'existing' = 'immutable'")
        #expect(carrying == 4, "the listing and its three children")
    }
}
