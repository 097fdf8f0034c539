import FerryClient
import FerryCore
import FerryProviders
import FerryStore
import FerryTestSupport
import Foundation
import Postgres
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `ferry retry … --option NAME=VALUE` and Flickr children that build their URLs when they run: what failed is
/// changed, and the retry succeeds. Workers, producer and dev server in the test's process (`InProcessFleet`), the
/// retries through the store call the command makes; what `ferry retry` and `ferry status` print runs the command.
@Suite("retry with other options", .tags(.postgres), .serialized)
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

    /// `ferry retry TARGET --option NAME=VALUE…`: the values typed as the command types them, then the store's retry.
    static func retry(_ fleet: InProcessFleet, _ target: FerryStore.JobFilter, _ options: [String: String]) async throws -> [CommandOutcome] {
        var typed = [String: JSONValue]()
        for (name, text) in options { typed[name] = try ProviderRegistry.standard.retryOptionValue(name: name, text: text) }
        return try await fleet.store.retry(target, requestedBy: "test", options: typed)
    }

    /// `ferry enqueue upload FILE… --to dropbox:nightly:/Backups/ --batch BATCH [--key KEY] [options]`, waited for.
    static func upload(
        _ fleet: InProcessFleet, _ files: [String], batch: String, key: String? = nil, options: [String: OptionValue] = [:]
    ) async throws -> [String] {
        let jobs = try await fleet.client.enqueue(files.map {
            JobRequest(kind: .upload, source: $0, to: "dropbox:nightly:/Backups/", batch: batch, idempotencyKey: key, options: options)
        })
        let ids = jobs.map { $0.id.uuidString.lowercased() }
        try await Self.finished(fleet.db, ids)
        return ids
    }

    /// A second night's upload in add mode that fails with destination_exists (the first night's file is there).
    static func conflict(_ fleet: InProcessFleet, _ file: String) async throws -> String {
        try DropboxAccounts.randomFile(file, size: 300_000)
        #expect(try await Self.state(fleet.db, try await Self.upload(fleet, [file], batch: "night-1")[0]).state == "succeeded")
        try DropboxAccounts.randomFile(file, size: 310_000)
        let id = try await Self.upload(fleet, [file], batch: "night-2", key: "night-2")[0]
        let failed = try await Self.state(fleet.db, id)
        #expect(failed.state == "failed" && (failed.error ?? "").contains("destination_exists"), "\(failed)")
        return id
    }

    @Test("destination_exists, then a retry with mode=overwrite replaces the file; a misspelled option writes nothing; a batch")
    func dropboxOverwrite() async throws {
        try await InProcessFleet.run("retry_overwrite") { fleet in try await Self.dropboxOverwrite(fleet) }
    }

    static func dropboxOverwrite(_ fleet: InProcessFleet) async throws {
        let (server, db) = (fleet.server, fleet.db)
        try await fleet.addDropbox("nightly")
        let dir = try temporaryFolder("retry-overwrite")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try fleet.worker("retry-options")

        // The first night's file is there; the second night's, in the default add mode, conflicts with it.
        let file = dir + "/backup.tar"
        let id = try await Self.conflict(fleet, file)
        let jobID = try #require(UUID(uuidString: id))
        let failed = try await Self.state(db, id)

        // A misspelled option: refused by name with the options a retry of a Dropbox upload changes; nothing written.
        for (options, words) in [
            (["mod": "overwrite"], ["options.mod: not an option a retry changes for Dropbox uploads", "autorename, existing, if_changed, mode, mute"]),
            (["mute": "perhaps"], ["mute", "must be true or false"]), (["account": "other"], ["fixed at enqueue"]),
        ] {
            do {
                _ = try await Self.retry(fleet, .job(jobID), options)
                Issue.record("\(options) was taken")
            } catch {
                #expect(error is ValidationIssue && words.allSatisfy { "\(error)".contains($0) }, "\(options): \(error)")
            }
        }
        #expect(try await Self.state(db, id).version == failed.version, "no event was appended")

        // With mode=overwrite the same job (same id) succeeds and the new version replaces the old one.
        let retried = try await Self.retry(fleet, .job(jobID), ["mode": "overwrite"])
        #expect(retried.map(\.action) == [.requeued] && retried.first?.jobID == jobID, "\(retried)")
        try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "the retried job to succeed") {
            try await Self.state(db, id).state == "succeeded"
        }
        let stored = server.storedFile(account: "nightly", path: "/Backups/backup.tar")
        #expect(try DropboxAccounts.sha256(stored) == DropboxAccounts.sha256(file), "the retry replaced the file")

        // The job kept its key and the key its fingerprint: the original request still names this job; the request
        // with the new option is another one, refused under that key.
        let repeated = try await fleet.client.enqueue([
            JobRequest(kind: .upload, source: file, to: "dropbox:nightly:/Backups/", batch: "night-2", idempotencyKey: "night-2")
        ])
        #expect(repeated.map(\.id) == [jobID] && repeated.first?.created == false, "\(repeated)")
        do {
            _ = try await fleet.client.enqueue([
                JobRequest(
                    kind: .upload, source: file, to: "dropbox:nightly:/Backups/", batch: "night-2", idempotencyKey: "night-2",
                    options: ["mode": .commandLine("overwrite")])
            ])
            Issue.record("another request was taken under the key night-2")
        } catch {
            #expect("\(error)".contains("night-2"), "\(error)")
        }

        // The change is in the history and in what status shows of the job.
        let requeued = try await db.query(
            "SELECT data->'options' FROM ferry.events WHERE job_id = $1::uuid AND type = 'requeued' ORDER BY version DESC LIMIT 1", [id]
        ).rows[0].decode(String?.self, at: 0)
        #expect(requeued.flatMap { try? JSONValue.parse($0) } == .object(["mode": .string("overwrite")]), "\(requeued ?? "")")
        #expect(try await fleet.store.retryOptions(of: jobID) == ["mode": .string("overwrite")])

        // A batch: two more conflicts, retried together with the option.
        let others = [dir + "/a.tar", dir + "/b.tar"]
        for path in others { try DropboxAccounts.randomFile(path, size: 50_000) }
        _ = try await Self.upload(fleet, others, batch: "night-3")
        for path in others { try DropboxAccounts.randomFile(path, size: 60_000) }
        let conflicts = try await Self.upload(fleet, others, batch: "night-4")
        for conflict in conflicts { #expect(try await Self.state(db, conflict).state == "failed") }
        let batch = try await Self.retry(fleet, .batch("night-4"), ["mode": "overwrite"])
        #expect(batch.count == 2 && batch.allSatisfy { $0.action == .requeued }, "\(batch)")
        try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "the batch to finish") {
            try await WorkerFixtures.batchDone(db, "night-4")
        }
        for path in others {
            let name = (path as NSString).lastPathComponent
            #expect(try DropboxAccounts.sha256(server.storedFile(account: "nightly", path: "/Backups/\(name)")) == DropboxAccounts.sha256(path))
        }
        // The Swift fold agrees with the projection the SQL fold wrote.
        #expect(try await fleet.projectionClean(), "ferry projection verify would pass")
    }

    @Test(
        "ferry retry refuses a misspelled option naming the ones a retry changes (exit 65, nothing retried); retried with mode=overwrite, ferry status and events show the change",
        .tags(.process))
    func retryOnTheCommandLine() async throws {
        try await InProcessFleet.run("retry_overwrite_cli") { fleet in
            let db = fleet.db
            try await fleet.addDropbox("nightly")
            let dir = try temporaryFolder("retry-overwrite-cli")
            defer { try? FileManager.default.removeItem(atPath: dir) }
            _ = try fleet.worker("retry-cli")
            let id = try await Self.conflict(fleet, dir + "/backup.tar")
            let failed = try await Self.state(db, id)

            let misspelled = try await Self.run(db, ["retry", id, "--option", "mod=overwrite"])
            #expect(misspelled.status == 65, "\(misspelled.stderr)")
            #expect(misspelled.stderr.contains("options.mod: not an option a retry changes for Dropbox uploads"), "\(misspelled.stderr)")
            #expect(misspelled.stderr.contains("autorename, existing, if_changed, mode, mute") && misspelled.stderr.contains("nothing was retried"), "\(misspelled.stderr)")
            let wrongValue = try await Self.run(db, ["retry", id, "--option", "mute=perhaps"])
            #expect(wrongValue.status == 65 && wrongValue.stderr.contains("mute: must be true or false"), "\(wrongValue.stderr)")
            let moved = try await Self.run(db, ["retry", id, "--option", "account=other"])
            #expect(moved.status == 65 && moved.stderr.contains("fixed at enqueue"), "\(moved.stderr)")
            #expect(try await Self.state(db, id).version == failed.version, "no event was appended")

            let retried = try await Self.run(db, ["retry", id, "--option", "mode=overwrite"])
            #expect(retried.status == 0 && retried.stdout.contains("\(id) requeued"), "\(retried.stdout)\(retried.stderr)")
            let events = try await Self.run(db, ["events", id, "--json"])
            let requeued = try JSONValue.parse(events.stdout).arrayValue?.last { $0["type"] == .string("requeued") }
            #expect(requeued?["data"]?["options"] == .object(["mode": .string("overwrite")]), "\(events.stdout)")
            let status = try await Self.run(db, ["status", id])
            #expect(status.stdout.contains("mode=overwrite (changed by ferry retry)"), "\(status.stdout)")
            let statusJSON = try JSONValue.parse(try await Self.run(db, ["status", id, "--json"]).stdout)
            #expect(statusJSON["retry_options"] == .object(["mode": .string("overwrite")]))
        }
    }

    @Test("Flickr: children fail on a wrong photo base; after ferry account update fixes it, ferry retry --batch fetches every photo")
    func flickrPhotoBaseFixed() async throws {
        try await InProcessFleet.run("retry_flickr") { fleet in try await Self.flickrPhotoBaseFixed(fleet) }
    }

    static func flickrPhotoBaseFixed(_ fleet: InProcessFleet) async throws {
        let (server, db) = (fleet.server, fleet.db)
        let target = try temporaryFolder("retry-flickr")
        defer { try? FileManager.default.removeItem(atPath: target) }
        let photos = try await FlickrFetchTests.seedUser(server, "55555555@N05", count: 12)
        // The REST endpoint is right (account add checks it); the photo base is not.
        try await fleet.addAccount(
            "flickr", provider: "flickr", values: ["api-url": server.baseURL + "/services/rest/", "content-url": server.baseURL + "/wrong/photos"],
            secrets: ["api-key": FlickrFetchTests.devKey])
        try await fleet.enqueue(.fetch, "flickr:55555555@N05", to: target + "/", batch: "stream", options: ["size": .commandLine("q")])

        let worker = try fleet.worker("retry-flickr", concurrency: 4)
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

        // `ferry account update flickr --content-url …`.
        _ = try await fleet.store.accounts.update("flickr", AccountChanges(contentURL: server.baseURL + "/flickr/photos"), by: "test")
        // Running workers read an account's settings again within 5 seconds (AccountTokenProvider's cache).
        try await Task.sleep(for: .seconds(6))
        let retry = try await Self.retry(fleet, .batch("stream"), [:])
        #expect(retry.filter { $0.action == .requeued }.count == 12, "\(retry)")
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

        try await fleet.stop([worker])
        #expect(try await fleet.projectionClean(), "ferry projection verify would pass")
    }
}
