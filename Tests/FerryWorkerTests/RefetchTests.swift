import AsyncHTTPClient
import FerryCore
import FerryDevServer
import FerryTestSupport
import Foundation
import Postgres
import Testing

/// A folder fetched again into the same place brings only what is new or changed. The Dropbox case runs a real
/// worker in process on PostgreSQL with the registry's handlers against a dev server in process (its proof is in the
/// jobs, the server's counts and the files); the Flickr case runs the worker's scheduler beside it, as `ferry worker` does.
@Suite("re-fetch only what changed")
struct RefetchTests {
    @Test("a Dropbox folder fetched again: unchanged files are skipped, a changed, a new and a locally damaged one are downloaded",
          .tags(.postgres))
    func dropboxFolderAgain() async throws {
        try await PostgresWorker.withDevServer { server, _, http in try await Self.dropboxAgain(server: server, http: http) }
    }

    static func dropboxAgain(server: DevServer, http: HTTPClient) async throws {
        let db = try await TestDatabase.make("refetch")
        let dir = try temporaryFolder("refetch")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let accounts = db.store(poolSize: 1)
        defer { accounts.client.close() }
        let tokens = try await Self.addDropbox(server, store: accounts, http: http)
        try server.seedFiles(account: "box", folder: "/Feed", count: 6, size: 5000)
        let worker = try Self.worker(db, root: dir, tokens: tokens, http: http)
        do {
            try await Self.fetchAgain(db, server: server, http: http, into: dir + "/out")
        } catch {
            try? await worker.stop()
            throw error
        }
        try await worker.stop()
        let report = try await accounts.projection.verify()
        #expect(report.isClean, "\(report.text)")
    }

    static func fetchAgain(_ db: TestDatabase, server: DevServer, http: HTTPClient, into out: String) async throws {
        _ = try await Self.enqueueFetch(db, "dropbox:box:/Feed", to: out + "/", batch: "first")
        try await Self.waitForBatch(db, "first")
        #expect(server.stats().requestsPerRoute["files/download"] == 6)

        // Remotely: one file changes (same size, other bytes), one is added. Locally: one file is damaged (same size).
        let changed = DropboxFetchTests.seededName(2)
        try await Self.upload(server, http: http, path: "/Feed/" + changed, data: Data(repeating: 7, count: 5000))
        try await Self.upload(server, http: http, path: "/Feed/new.bin", data: Data(repeating: 9, count: 300))
        let damaged = out + "/" + DropboxFetchTests.seededName(4)
        try Data(repeating: 0, count: 5000).write(to: URL(fileURLWithPath: damaged))

        _ = try await Self.enqueueFetch(db, "dropbox:box:/Feed", to: out + "/", batch: "second")
        try await Self.waitForBatch(db, "second")
        // One file fetched on its own, into the folder and to its own path: present and unchanged, so skipped too.
        let single = try await Self.enqueueFetch(db, "dropbox:box:/Feed/" + DropboxFetchTests.seededName(0), to: out + "/", batch: "third")
        let named = try await Self.enqueueFetch(
            db, "dropbox:box:/Feed/" + DropboxFetchTests.seededName(1), to: out + "/" + DropboxFetchTests.seededName(1), batch: "third")
        try await Self.waitForBatch(db, "third")
        for job in [single, named] {
            #expect(try await DropboxFetchTests.result(db, job.uuidString)["skipped"] == .string("unchanged"))
        }

        let stats = server.stats()
        #expect(stats.requestsPerRoute["files/download"] == 9, "only the changed (6 first, then 3), new and damaged files: \(stats.requestsPerRoute)")
        let skipped = try await count(
            db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'second' AND state = 'succeeded' AND result->>'skipped' = 'unchanged'")
        #expect(skipped == 4, "the job results say which files were skipped")
        let names = (0..<6).map(DropboxFetchTests.seededName) + ["new.bin"]
        #expect(DropboxFetchTests.localFiles(out) == names.sorted())
        for name in names {
            let ours = FileManager.default.contents(atPath: out + "/" + name)
            let theirs = FileManager.default.contents(atPath: server.configuration.storageDirectory + "/box/Feed/" + name)
            #expect(ours != nil && ours == theirs, "\(name) is the current remote file")
        }
    }

    @Test("a scheduled Flickr photostream fetch: ticks during a run are skipped, later ticks list the stream and fetch nothing again",
          .tags(.postgres))
    func scheduledPhotostream() async throws {
        try await InProcessFleet.run("refetch_flickr") { fleet in try await Self.scheduledPhotostream(fleet) }
    }

    static func scheduledPhotostream(_ fleet: InProcessFleet) async throws {
        let server = fleet.server, db = fleet.db
        let target = try temporaryFolder("refetch-flickr")
        defer { try? FileManager.default.removeItem(atPath: target) }
        let photos = try await FlickrFetchTests.seedUser(server, "9@N09", count: 20)
        try await FlickrFetchTests.addAccount("flickr", key: FlickrFetchTests.devKey, fleet: fleet)
        // Photos held at their 100th byte: the first run is still going when the next ticks fall, however slow the
        // machine, and they must give way to it (overlap skip, the default) rather than list a half-fetched folder.
        try await server.setFaults(["download_pause_at_byte": .int(100)])
        try await fleet.addSchedule(
            "stream", everySeconds: 2,
            template: JobRequest(kind: .fetch, source: "flickr:9@N09", to: target + "/", options: ["size": .commandLine("q")]))
        let worker = try fleet.worker("stream-1", concurrency: 8, scheduleInterval: .milliseconds(200))
        try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "two ticks skipped for the first run") {
            try await count(db, "SELECT count(*) FROM ferry.schedule_runs WHERE skipped_for IS NOT NULL") >= 2
        }
        try await server.setFaults([:])
        // The first run, then two more after it: they find every photo present.
        try await eventually(timeout: .seconds(300), interval: .milliseconds(300), "three listings to finish") {
            try await count(
                db, "SELECT count(*) FROM ferry.schedule_runs r JOIN ferry.jobs j ON j.job_id = r.job_id WHERE j.state = 'succeeded'") >= 3
        }
        try await fleet.pauseSchedule("stream")
        try await fleet.stop([worker])
        #expect(FlickrFetchTests.tree(target) == photos.map { "\($0.id)_q.jpg" }.sorted())

        // One job per photo over all the runs; a photo downloaded again only by a recorded later attempt of that job.
        let jobs = try await db.query(
            """
            SELECT '/flickr/photos/' || (j.spec #>> '{photo,server}') || '/' || split_part(j.source, '/photo/', 2) || '_'
                   || (j.spec #>> '{photo,secret}') || '_' || (j.spec #>> '{photo,size}') || '.jpg',
                   count(DISTINCT j.job_id), count(e.*) FILTER (WHERE e.type = 'claimed')
              FROM ferry.jobs j JOIN ferry.events e ON e.job_id = j.job_id
             WHERE j.source LIKE 'flickr:%/photo/%' GROUP BY 1
            """).rows
        #expect(jobs.count == 20)
        let downloads = try await server.stats()["flickr_photo_downloads_per_path"]?.objectValue ?? [:]
        #expect(downloads.count == 20, "\(downloads)")
        for row in jobs {
            // The photo's path on the photo host (a child builds its URL when it runs).
            let path = try row.decode(String.self, at: 0)
            #expect(try row.decode(Int.self, at: 1) == 1, "\(path) was enqueued by one run only")
            let count = downloads[path]?.intValue ?? 0
            let attempts = try row.decode(Int.self, at: 2)
            #expect(count >= 1 && count <= attempts, "\(path) downloaded \(count) times in \(attempts) attempts")
        }
        let results = try await db.query(
            """
            SELECT j.result->>'unchanged' FROM ferry.schedule_runs r JOIN ferry.jobs j ON j.job_id = r.job_id
             WHERE j.state = 'succeeded' ORDER BY r.tick_at
            """).rows.map { try $0.decode(String?.self, at: 0) }
        #expect(results.first == "0", "the first listing found nothing present")
        #expect(results.dropFirst().allSatisfy { $0 == "20" } && results.count >= 3, "later listings skip every photo: \(results)")
        // Each run is a batch of its own, named by its tick's key: the first listing and the photos it found.
        #expect(try await count(db, """
            SELECT count(*) FROM ferry.jobs c
             WHERE c.source LIKE 'flickr:%/photo/%' AND c.batch = (SELECT j.idempotency_key FROM ferry.schedule_runs r
                                                          JOIN ferry.jobs j ON j.job_id = r.job_id ORDER BY r.tick_at LIMIT 1)
            """) == 20)
    }
}

