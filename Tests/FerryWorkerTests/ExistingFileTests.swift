import FerryCore
import FerryTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `--ignore-existing` and `--immutable` on fetches: a file already at the target is kept, or never replaced by a
/// different one; a folder's children follow their parent. Real workers, the dev server, real PostgreSQL. A single URL
/// fetch onto an existing file runs in process: `ExistingURLFetchTests`.
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
