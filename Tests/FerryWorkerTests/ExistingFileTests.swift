import FerryCore
import FerryTestSupport
import Foundation
import Testing

/// `--ignore-existing` and `--immutable` on fetches: a file already at the target is kept, or never replaced by a
/// different one; a folder's children follow their parent. Workers in process (`InProcessFleet`) on the dev server,
/// real PostgreSQL. A single URL fetch onto an existing file: `ExistingURLFetchTests`.
@Suite("fetches onto existing files", .tags(.postgres), .serialized)
struct ExistingFileTests {
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
        try await InProcessFleet.run("existing_folder") { fleet in
            let db = fleet.db
            try await fleet.addDropbox("box")
            try await DropboxFetchTests.seed(fleet.server, account: "box", folder: "/Pics", count: 3, size: 200)
            let dir = try temporaryFolder("existing-folder")
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let names = (0..<3).map(DropboxFetchTests.seededName)
            try Data("mine".utf8).write(to: URL(fileURLWithPath: dir + "/" + names[1]))
            // --immutable --max-attempts 1
            try await fleet.enqueue(.fetch, "dropbox:box:/Pics", to: dir + "/", batch: "pics", options: ["existing": .commandLine("immutable")], maxAttempts: 1)
            let worker = try fleet.worker("folder")
            try await eventually(timeout: .seconds(300), "the folder") { try await WorkerFixtures.batchDone(db, "pics") }
            try await fleet.stop([worker])
            let jobs = try await Self.finished(db, "pics")
            #expect(jobs[names[0]]?.state == "succeeded" && jobs[names[2]]?.state == "succeeded", "\(jobs)")
            #expect(jobs[names[1]]?.state == "failed", "\(jobs)")
            #expect(FileManager.default.contents(atPath: dir + "/" + names[1]) == Data("mine".utf8))
            let carrying = try await count(
                db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'pics' AND spec->>'existing' = 'immutable'")
            #expect(carrying == 4, "the listing and its three children")
        }
    }
}
