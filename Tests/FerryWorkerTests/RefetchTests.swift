import FerryCore
import FerryTestSupport
import Foundation
import Postgres
import Testing

/// A folder fetched again into the same place brings only what is new or changed.
@Suite("re-fetch only what changed")
struct RefetchTests {
    @Test("a Dropbox folder fetched again: unchanged files are skipped, a changed, a new and a locally damaged one are downloaded")
    func dropboxFolderAgain() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("refetch")
        let token = try await DropboxAccounts.add("box", server: server, databaseURL: db.url)
        try await DropboxFetchTests.seed(server, account: "box", folder: "/Feed", count: 6, size: 5000)
        let dir = try DropboxFetchTests.folder("refetch")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let worker = try DropboxFetchTests.startWorker(db, name: "refetch-1", ["--concurrency", "4"])

        _ = try await DropboxFetchTests.enqueueFetch(db, "dropbox:box:/Feed", to: dir + "/out/", ["--batch", "first"])
        try await DropboxFetchTests.waitForBatch(db, "first")
        #expect(try await server.stats()["requests_per_route"]?["files/download"]?.intValue == 6)

        // Remotely: one file changes (same size, other bytes), one is added. Locally: one file is damaged (same size).
        let changed = DropboxFetchTests.seededName(2)
        try await DropboxFetchTests.upload(server, refreshToken: token, path: "/Feed/" + changed, data: Data(repeating: 7, count: 5000))
        try await DropboxFetchTests.upload(server, refreshToken: token, path: "/Feed/new.bin", data: Data(repeating: 9, count: 300))
        let damaged = dir + "/out/" + DropboxFetchTests.seededName(4)
        try Data(repeating: 0, count: 5000).write(to: URL(fileURLWithPath: damaged))

        _ = try await DropboxFetchTests.enqueueFetch(db, "dropbox:box:/Feed", to: dir + "/out/", ["--batch", "second"])
        try await DropboxFetchTests.waitForBatch(db, "second")
        try await DropboxFetchTests.stop([worker])

        let stats = try await server.stats()
        #expect(stats["requests_per_route"]?["files/download"]?.intValue == 9, "only the changed (6 first, then 3), new and damaged files: \(stats)")
        let skipped = try await WorkerFixtures.count(
            db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'second' AND state = 'succeeded' AND result->>'skipped' = 'unchanged'")
        #expect(skipped == 4, "the job results say which files were skipped")
        let names = (0..<6).map(DropboxFetchTests.seededName) + ["new.bin"]
        #expect(DropboxFetchTests.localFiles(dir + "/out") == names.sorted())
        for name in names {
            let ours = FileManager.default.contents(atPath: dir + "/out/" + name)
            let theirs = FileManager.default.contents(atPath: server.storedFile(account: "box", path: "/Feed/" + name))
            #expect(ours != nil && ours == theirs, "\(name) is the current remote file")
        }
        #expect(try await FerryProcess.run(["projection", "verify"], databaseURL: db.url).status == 0)
    }
}
