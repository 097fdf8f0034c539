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
        // One file fetched on its own, into the folder and to its own path: present and unchanged, so skipped too.
        let single = try await DropboxFetchTests.enqueueFetch(
            db, "dropbox:box:/Feed/" + DropboxFetchTests.seededName(0), to: dir + "/out/", ["--batch", "third"])
        let named = try await DropboxFetchTests.enqueueFetch(
            db, "dropbox:box:/Feed/" + DropboxFetchTests.seededName(1), to: dir + "/out/" + DropboxFetchTests.seededName(1), ["--batch", "third"])
        try await DropboxFetchTests.waitForBatch(db, "third")
        try await DropboxFetchTests.stop([worker])
        for job in [single, named] {
            #expect(try await DropboxFetchTests.result(db, job)["skipped"] == .string("unchanged"))
        }

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

    @Test("a scheduled Flickr photostream fetch: each tick lists the stream, photos already fetched are not fetched again")
    func scheduledPhotostream() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("refetch_flickr")
        let target = try URLFetchTests.folder("refetch-flickr")
        defer { try? FileManager.default.removeItem(atPath: target) }
        let photos = try await FlickrFetchTests.seedUser(server, "9@N09", count: 20)
        try await FlickrFetchTests.addAccount("flickr", key: FlickrFetchTests.devKey, server: server, db: db)
        let add = try await FerryProcess.run(
            ["schedule", "add", "stream", "--every", "10s", "--", "fetch", "flickr:9@N09", "--to", target + "/", "--size", "q"],
            databaseURL: db.url, environment: ["FERRY_SCHEDULE_MIN_INTERVAL": "1"])
        #expect(add.status == 0, "\(add.stderr)")
        let worker = try URLFetchTests.startWorker(db, name: "stream-1", ["--concurrency", "8", "--schedule-interval", "0.2"])
        // Ticks do not wait for the previous run: hold the schedule while the first run fetches (on a busy machine
        // that can take longer than a tick), so the later ticks meet a complete folder.
        try await eventually(timeout: .seconds(120), interval: .milliseconds(100), "the first tick") {
            try await WorkerFixtures.count(db, "SELECT count(*) FROM ferry.schedule_runs WHERE job_id IS NOT NULL") >= 1
        }
        #expect(try await FerryProcess.run(["schedule", "pause", "stream"], databaseURL: db.url).status == 0)
        try await eventually(timeout: .seconds(300), interval: .milliseconds(300), "the first run to fetch every photo") {
            try await WorkerFixtures.count(db, "SELECT count(*) FROM ferry.jobs WHERE state NOT IN ('succeeded', 'failed', 'cancelled')") == 0
        }
        #expect(try await FerryProcess.run(["schedule", "resume", "stream"], databaseURL: db.url).status == 0)
        // Two more ticks, 10 s apart: they find every photo present.
        try await eventually(timeout: .seconds(300), interval: .milliseconds(300), "three listings to finish") {
            try await WorkerFixtures.count(
                db, "SELECT count(*) FROM ferry.schedule_runs r JOIN ferry.jobs j ON j.job_id = r.job_id WHERE j.state = 'succeeded'") >= 3
        }
        #expect(try await FerryProcess.run(["schedule", "pause", "stream"], databaseURL: db.url).status == 0)
        try await URLFetchTests.stop([worker])
        #expect(FlickrFetchTests.tree(target) == photos.map { "\($0.id)_q.jpg" }.sorted())
        let stats = try await server.stats()
        let downloads = stats["flickr_photo_downloads_per_path"]?.objectValue ?? [:]
        #expect(downloads.count == 20 && downloads.values.allSatisfy { $0.intValue == 1 }, "each photo downloaded once: \(downloads)")
        let results = try await db.query(
            """
            SELECT j.result->>'unchanged' FROM ferry.schedule_runs r JOIN ferry.jobs j ON j.job_id = r.job_id
             WHERE j.state = 'succeeded' ORDER BY r.tick_at
            """).rows.map { try $0.decode(String?.self, at: 0) }
        #expect(results.first == "0", "the first listing found nothing present")
        #expect(results.dropFirst().allSatisfy { $0 == "20" } && results.count >= 3, "later listings skip every photo: \(results)")
    }
}

