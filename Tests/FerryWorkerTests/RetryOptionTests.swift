import FerryCore
import FerryTestSupport
import Foundation
import Postgres
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// `ferry retry … --option NAME=VALUE` and Flickr children that build their URLs when they run: what failed is
/// changed, and the retry succeeds, with real workers on a real dev server.
@Suite("retry with other options", .tags(.postgres, .process), .serialized)
struct RetryOptionTests {
    static func run(_ db: TestDatabase, _ arguments: [String]) async throws -> FerryProcess.Result {
        try await FerryProcess.run(arguments, databaseURL: db.url)
    }

    static func state(_ db: TestDatabase, _ id: String) async throws -> (state: String, version: Int, error: String?) {
        let row = try await db.query("SELECT state, version, last_error FROM ferry.jobs WHERE job_id = $1::uuid", [id]).rows[0]
        return (try row.decode(String.self, at: 0), try row.decode(Int.self, at: 1), try row.decode(String?.self, at: 2))
    }

    static func finished(_ db: TestDatabase, _ ids: [String]) async throws {
        try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "jobs to finish") {
            try await count(
                db, "SELECT count(*) FROM ferry.jobs WHERE job_id = ANY ($1::uuid[]) AND state IN ('succeeded', 'failed')",
                [PostgresArray(ids.compactMap(UUID.init(uuidString:)))]) == ids.count
        }
    }

    @Test("destination_exists, then ferry retry JOB --option mode=overwrite replaces the file; a misspelled option writes nothing; --batch")
    func dropboxOverwrite() async throws {
        let server = try await DevServerProcess([])
        let db = try await TestDatabase.make("retry_overwrite")
        try await DropboxAccounts.add("nightly", server: server, databaseURL: db.url)
        let dir = try temporaryFolder("retry-overwrite")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let worker = try TestWorker.transfers(db, name: "retry-options")
        func upload(_ files: [String], batch: String, _ extra: [String] = []) async throws -> [String] {
            let result = try await Self.run(db, ["enqueue", "upload"] + files + ["--to", "dropbox:nightly:/Backups/", "--batch", batch] + extra)
            #expect(result.status == 0, "\(result.stderr)")
            let ids = result.lines.filter { UUID(uuidString: $0) != nil }
            try await Self.finished(db, ids)
            return ids
        }

        // The first night's file is there; the second night's, in the default add mode, conflicts with it.
        let file = dir + "/backup.tar"
        try DropboxAccounts.randomFile(file, size: 300_000)
        #expect(try await Self.state(db, try await upload([file], batch: "night-1")[0]).state == "succeeded")
        try DropboxAccounts.randomFile(file, size: 310_000)
        let id = try await upload([file], batch: "night-2", ["--key", "night-2"])[0]
        let failed = try await Self.state(db, id)
        #expect(failed.state == "failed" && (failed.error ?? "").contains("destination_exists"), "\(failed)")

        // A misspelled option: refused by name with the options a retry of a Dropbox upload changes; nothing written.
        let misspelled = try await Self.run(db, ["retry", id, "--option", "mod=overwrite"])
        #expect(misspelled.status == 65, "\(misspelled.stderr)")
        #expect(misspelled.stderr.contains("options.mod: not an option a retry changes for Dropbox uploads"), "\(misspelled.stderr)")
        #expect(misspelled.stderr.contains("autorename, existing, if_changed, mode, mute") && misspelled.stderr.contains("nothing was retried"), "\(misspelled.stderr)")
        let wrongValue = try await Self.run(db, ["retry", id, "--option", "mute=perhaps"])
        #expect(wrongValue.status == 65 && wrongValue.stderr.contains("mute: must be true or false"), "\(wrongValue.stderr)")
        let moved = try await Self.run(db, ["retry", id, "--option", "account=other"])
        #expect(moved.status == 65 && moved.stderr.contains("fixed at enqueue"), "\(moved.stderr)")
        #expect(try await Self.state(db, id).version == failed.version, "no event was appended")

        // With mode=overwrite the same job (same id) succeeds and the new version replaces the old one.
        let retried = try await Self.run(db, ["retry", id, "--option", "mode=overwrite"])
        #expect(retried.status == 0 && retried.stdout.contains("\(id) requeued"), "\(retried.stdout)\(retried.stderr)")
        try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "the retried job to succeed") {
            try await Self.state(db, id).state == "succeeded"
        }
        let stored = server.storedFile(account: "nightly", path: "/Backups/backup.tar")
        #expect(try DropboxAccounts.sha256(stored) == DropboxAccounts.sha256(file), "the retry replaced the file")

        // The job kept its key and the key its fingerprint: the original request still names this job; the request
        // with the new option is another one, refused under that key.
        let repeated = try await Self.run(db, ["enqueue", "upload", file, "--to", "dropbox:nightly:/Backups/", "--batch", "night-2", "--key", "night-2"])
        #expect(repeated.status == 0 && repeated.lines.contains(id), "\(repeated.stdout)\(repeated.stderr)")
        let other = try await Self.run(
            db, ["enqueue", "upload", file, "--to", "dropbox:nightly:/Backups/", "--batch", "night-2", "--key", "night-2", "--option", "mode=overwrite"])
        #expect(other.status == 65 && other.stderr.contains("night-2"), "\(other.stdout)\(other.stderr)")

        // The change is in the history and in the job's status.
        let events = try await Self.run(db, ["events", id, "--json"])
        let requeued = try JSONValue.parse(events.stdout).arrayValue?.last { $0["type"] == .string("requeued") }
        #expect(requeued?["data"]?["options"] == .object(["mode": .string("overwrite")]), "\(events.stdout)")
        let status = try await Self.run(db, ["status", id])
        #expect(status.stdout.contains("mode=overwrite (changed by ferry retry)"), "\(status.stdout)")
        let statusJSON = try JSONValue.parse(try await Self.run(db, ["status", id, "--json"]).stdout)
        #expect(statusJSON["retry_options"] == .object(["mode": .string("overwrite")]))

        // --batch: two more conflicts, retried together with the option.
        let others = [dir + "/a.tar", dir + "/b.tar"]
        for path in others { try DropboxAccounts.randomFile(path, size: 50_000) }
        _ = try await upload(others, batch: "night-3")
        for path in others { try DropboxAccounts.randomFile(path, size: 60_000) }
        let conflicts = try await upload(others, batch: "night-4")
        for conflict in conflicts { #expect(try await Self.state(db, conflict).state == "failed") }
        let batch = try await Self.run(db, ["retry", "--batch", "night-4", "--option", "mode=overwrite", "--json"])
        #expect(batch.status == 0, "\(batch.stderr)")
        #expect((try JSONValue.parse(batch.stdout)).arrayValue?.count == 2, "\(batch.stdout)")
        try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "the batch to finish") {
            try await WorkerFixtures.batchDone(db, "night-4")
        }
        for path in others {
            let name = (path as NSString).lastPathComponent
            #expect(try DropboxAccounts.sha256(server.storedFile(account: "nightly", path: "/Backups/\(name)")) == DropboxAccounts.sha256(path))
        }

        worker.signal(SIGTERM)
        _ = try await worker.waitForExit()
        // The Swift fold agrees with the projection the SQL fold wrote.
        let verify = try await Self.run(db, ["projection", "verify"])
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
    }

    @Test("Flickr: children fail on a wrong photo base; after ferry account update fixes it, ferry retry --batch fetches every photo")
    func flickrPhotoBaseFixed() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("retry_flickr")
        let target = try temporaryFolder("retry-flickr")
        defer { try? FileManager.default.removeItem(atPath: target) }
        let photos = try await FlickrFetchTests.seedUser(server, "55555555@N05", count: 12)
        // The REST endpoint is right (account add checks it); the photo base is not.
        let added = try await FerryProcess.run(
            ["account", "add", "flickr", "--provider", "flickr", "--api-key-file", "-",
             "--api-url", server.baseURL + "/services/rest/", "--content-url", server.baseURL + "/wrong/photos"],
            databaseURL: db.url, stdin: FlickrFetchTests.devKey + "\n", environment: DropboxAccounts.environment)
        #expect(added.status == 0, "\(added.stderr)")
        _ = try await FlickrFetchTests.enqueue(db, ["flickr:55555555@N05", "--to", target + "/", "--size", "q", "--batch", "stream"])

        let worker = try TestWorker.transfers(db, name: "retry-flickr", ["--concurrency", "4"])
        try await eventually(timeout: .seconds(300), interval: .milliseconds(300), "every photo to fail") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'stream' AND state = 'failed'") == 12
        }
        // Each child names its photo and no URL: the URL is built from the account when the child runs.
        let children = try await db.query(
            "SELECT source, spec::text, last_error FROM ferry.jobs WHERE batch = 'stream' AND source LIKE 'flickr:%/photo/%'").rows
        #expect(children.count == 12)
        for child in children {
            let spec = try child.decode(String.self, at: 1)
            #expect(!spec.contains("http") && spec.contains("\"account\": \"flickr\""), "\(spec)")
            #expect((try child.decode(String?.self, at: 2) ?? "").contains("/wrong/photos/"))
        }
        #expect(FlickrFetchTests.tree(target).isEmpty)

        let update = try await Self.run(db, ["account", "update", "flickr", "--content-url", server.baseURL + "/flickr/photos"])
        #expect(update.status == 0, "\(update.stderr)")
        // Running workers read an account's settings again within 5 seconds (AccountTokenProvider's cache).
        try await Task.sleep(for: .seconds(6))
        let retry = try await Self.run(db, ["retry", "--batch", "stream"])
        #expect(retry.status == 0 && retry.lines.filter { $0.hasSuffix(" requeued") }.count == 12, "\(retry.stdout)\(retry.stderr)")
        try await eventually(timeout: .seconds(300), interval: .milliseconds(300), "the batch to finish") {
            try await WorkerFixtures.batchDone(db, "stream")
        }
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state <> 'succeeded'") == 0)
        #expect(FlickrFetchTests.tree(target) == photos.map { "\($0.id)_q.jpg" }.sorted())
        for photo in photos.prefix(3) {
            let url = server.baseURL + "/flickr/photos/" + photo.path.split(separator: "/").suffix(2).joined(separator: "/")
                .replacingOccurrences(of: ".jpg", with: "_q.jpg")
            let (data, _) = try await URLSession.shared.data(from: URL(string: url)!)
            #expect(try Data(contentsOf: URL(fileURLWithPath: target + "/\(photo.id)_q.jpg")) == data)
        }

        // A child forged by a producer (a raw enqueued event) reaches nothing but a photo path under the account's
        // base: parts that could leave it fail the job for good, and no request goes out.
        _ = try await server.request("POST", "/__dev/reset-stats")
        let forged = UUID().uuidString.lowercased()
        try await db.query(
            """
            INSERT INTO ferry.events (job_id, version, type, data) VALUES ($1::uuid, 1, 'enqueued', jsonb_build_object(
                'kind', 'fetch', 'queue', 'default', 'priority', 0, 'max_attempts', 1, 'source', 'flickr:55555555@N05/photo/1',
                'destination', $2::text, 'batch', 'forged',
                'spec', jsonb_build_object('root', $3::text, 'account', 'flickr',
                                           'photo', jsonb_build_object('server', '..', 'secret', 'x/../../__dev'))))
            """, [forged, target + "/forged.jpg", target + "/"])
        try await eventually(timeout: .seconds(120), interval: .milliseconds(200), "the forged child to fail") {
            try await Self.state(db, forged).state == "failed"
        }
        let forgedError = try await Self.state(db, forged).error ?? ""
        #expect(forgedError.contains("not a Flickr photo"), "\(forgedError)")
        #expect(try await server.stats()["flickr_photo_downloads_per_path"]?.objectValue?.isEmpty ?? true)

        worker.signal(SIGTERM)
        _ = try await worker.waitForExit()
        let verify = try await Self.run(db, ["projection", "verify"])
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
    }
}
