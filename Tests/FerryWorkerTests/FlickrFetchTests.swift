import FerryCore
import FerryTestSupport
import Foundation
import Postgres
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import FerryFlickr
@testable import FerryWorker

/// Workers listing a Flickr photostream on the dev server and fetching every photo, in process (`InProcessFleet`):
/// the proof is in the jobs, the views, the server's counts and the files. A worker killed mid-listing and
/// `ferry account add`'s refusals are `FlickrFetchProcessTests`.
@Suite("Flickr fetches")
struct FlickrFetchTests {
    static let devKey = "ferry-dev-flickr"

    /// `ferry account add NAME --provider flickr --api-key-file -` in process, pointed at the fleet's server.
    static func addAccount(_ name: String, key: String, fleet: InProcessFleet, verify: Bool = true) async throws {
        let base = fleet.server.baseURL
        try await fleet.addAccount(
            name, provider: "flickr", values: ["api-url": base + "/services/rest/", "content-url": base + "/flickr/photos"],
            secrets: ["api-key": key], verify: verify)
    }

    /// Seeds a user; answers its photos (id → title) in stream order.
    static func seedUser(_ server: any DevServerControl, _ userID: String, count: Int, totalAs: String = "string") async throws -> [(id: String, title: String, path: String)] {
        let reply = try await server.request(
            "POST", "/__dev/flickr/users", json: .object(["user_id": .string(userID), "count": .int(Int64(count)), "total_as": .string(totalAs)]))
        guard case .array(let photos)? = reply["photos"] else { throw TestSupportError("no photos in the seed answer") }
        return photos.map { ($0["id"]?.stringValue ?? "", $0["title"]?.stringValue ?? "", $0["path"]?.stringValue ?? "") }
    }

    /// Files below `dir`, relative, with folders marked by a trailing slash.
    static func tree(_ dir: String) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: dir)
        var out = [String]()
        while let item = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: dir + "/" + item, isDirectory: &isDirectory)
            out.append(isDirectory.boolValue ? item + "/" : item)
        }
        return out.sorted()
    }

    /// `--size S` (and `--max N`) as `ferry enqueue` passes them.
    static func options(size: String, max: Int64? = nil) -> [String: OptionValue] {
        var options: [String: OptionValue] = ["size": .commandLine(size)]
        if let max { options["max"] = .json(.int(max)) }
        return options
    }

    @Test("1,050 photos over three pages: each downloaded (again only by a recorded attempt), titles in job_status, batch done, every job succeeded", .tags(.postgres))
    func threePages() async throws {
        try await InProcessFleet.run("flickr_pages") { fleet in try await Self.threePages(fleet) }
    }

    static func threePages(_ fleet: InProcessFleet) async throws {
        let server = fleet.server, db = fleet.db
        let parent = try temporaryFolder("flickr-pages")
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let target = parent + "/stream"
        let photos = try await Self.seedUser(server, "42424242@N01", count: 1050)
        try await Self.addAccount("flickr", key: Self.devKey, fleet: fleet)
        let listing = try await fleet.enqueue(.fetch, "flickr:42424242@N01", to: target + "/", batch: "stream", options: Self.options(size: "s"))

        let workers = try (0..<2).map { try fleet.worker("flickr-\($0)", concurrency: 8) }
        try await eventually(timeout: .seconds(900), interval: .milliseconds(500), "the batch to finish") {
            try await WorkerFixtures.batchDone(db, "stream")
        }
        // What `ferry wait` checks before it exits 0: done, and every job succeeded.
        try await fleet.waitForBatch("stream")
        try await fleet.stop(workers)

        let failed = try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state <> 'succeeded'")
        #expect(failed == 0)
        let children = try await count(db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'stream' AND source LIKE 'flickr:%/photo/%'")
        #expect(children == 1050)

        // Exactly the photos' files, nothing else anywhere below the parent folder.
        let expectedNames = photos.map { "\($0.id)_s.jpg" }
        #expect(Self.tree(parent) == (["stream/"] + expectedNames.map { "stream/" + $0 }).sorted())
        // Every photo was downloaded, and again only by an attempt the log records: on a starved machine a worker
        // can miss its heartbeat and have its jobs rescued, or a download can time out and be retried.
        let downloads = try await server.stats()["flickr_photo_downloads_per_path"]
        let attempts = try await db.query(
            // A child's photo path on the photo host: its server, id, secret and size (the URL is built when it runs).
            """
            SELECT '/flickr/photos/' || (j.spec #>> '{photo,server}') || '/' || split_part(j.source, '/photo/', 2) || '_'
                   || (j.spec #>> '{photo,secret}') || '_' || (j.spec #>> '{photo,size}') || '.jpg', count(e.*)
              FROM ferry.jobs j JOIN ferry.events e ON e.job_id = j.job_id AND e.type = 'claimed'
             WHERE j.source LIKE 'flickr:%/photo/%' GROUP BY 1
            """
        ).rows.reduce(into: [String: Int]()) { map, row in
            map[try row.decode(String.self, at: 0)] = try row.decode(Int.self, at: 1)
        }
        var repeated = 0
        for photo in photos {
            let path = "/flickr/photos/" + photo.path.split(separator: "/").suffix(2).joined(separator: "/")
            let sized = path.replacingOccurrences(of: ".jpg", with: "_s.jpg")
            let count = downloads?[sized]?.intValue ?? 0
            #expect(count >= 1 && count <= attempts[sized] ?? 0, "\(sized) downloaded \(count) times in \(attempts[sized] ?? 0) attempts")
            if count > 1 { repeated += 1 }
        }
        print("photos downloaded again by a later attempt: \(repeated)")
        // Bytes equal the server's for a sample.
        for photo in photos.enumerated().filter({ $0.offset % 100 == 0 }).map(\.element) {
            let url = server.baseURL + "/flickr/photos/" + photo.path.split(separator: "/").suffix(2).joined(separator: "/").replacingOccurrences(of: ".jpg", with: "_s.jpg")
            let (data, _) = try await URLSession.shared.data(from: URL(string: url)!)
            #expect(try Data(contentsOf: URL(fileURLWithPath: target + "/\(photo.id)_s.jpg")) == data)
        }

        // Titles and owners are visible in SQL.
        let rows = try await db.query(
            "SELECT metadata->>'flickr_id', metadata->>'title', metadata->>'owner' FROM ferry.job_status WHERE batch = 'stream' AND metadata ? 'flickr_id'").rows
        var titles = [String: String]()
        for row in rows {
            titles[try row.decode(String.self, at: 0)] = try row.decode(String.self, at: 1)
            #expect(try row.decode(String.self, at: 2) == "42424242@N01")
        }
        #expect(titles.count == 1050)
        for photo in photos { #expect(titles[photo.id] == photo.title) }

        let result = try await db.query("SELECT result::text FROM ferry.jobs WHERE job_id = $1::uuid", [listing]).rows[0].decode(String?.self, at: 0)
        let details = try JSONValue.parse(result ?? "{}")
        #expect(details["photos"]?.intValue == 1050 || details["details"]?["photos"]?.intValue == 1050, "\(result ?? "")")
        #expect(try await count(db, "SELECT count(*) FROM ferry.events WHERE type = 'progress' AND data->'session' ? 'page'") == 3)
    }

    @Test("--max stops after that many photos", .tags(.postgres))
    func maxPhotos() async throws {
        try await InProcessFleet.run("flickr_max") { fleet in
            let target = try temporaryFolder("flickr-max")
            defer { try? FileManager.default.removeItem(atPath: target) }
            let photos = try await Self.seedUser(fleet.server, "7@N07", count: 300, totalAs: "number")
            try await Self.addAccount("flickr", key: Self.devKey, fleet: fleet)
            try await fleet.enqueue(.fetch, "flickr:7@N07", to: target + "/", batch: "few", options: Self.options(size: "q", max: 120))
            let worker = try fleet.worker("flickr-max", concurrency: 8)
            try await eventually(timeout: .seconds(600), interval: .milliseconds(500), "the batch to finish") {
                try await WorkerFixtures.batchDone(fleet.db, "few")
            }
            try await fleet.stop([worker])
            #expect(try await count(fleet.db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == 121)
            #expect(Self.tree(target) == photos.prefix(120).map { "\($0.id)_q.jpg" }.sorted(), "the 120 newest")
        }
    }

    @Test("a wrong API key (added without the check) fails the listing job with Flickr's message, never showing the key", .tags(.postgres))
    func wrongKey() async throws {
        try await InProcessFleet.run("flickr_key") { fleet in
            let db = fleet.db
            let target = try temporaryFolder("flickr-key")
            defer { try? FileManager.default.removeItem(atPath: target) }
            _ = try await Self.seedUser(fleet.server, "8@N08", count: 5)
            let wrongKey = "0123456789abcdef0123456789abcdef"
            // Checked at account add (flickr.test.echo), the wrong key is refused, naming Flickr and not the key.
            do {
                try await Self.addAccount("flickr", key: wrongKey, fleet: fleet)
                Issue.record("a wrong key was accepted")
            } catch let error as AccountSetupError {
                #expect(error.code == .rejected && error.message.contains("Flickr refused the API key") && !error.message.contains(wrongKey), "\(error)")
            }
            // Added without the check, the wrong key fails the job for good at once.
            try await Self.addAccount("flickr", key: wrongKey, fleet: fleet, verify: false)
            try await fleet.enqueue(.fetch, "flickr:8@N08", to: target + "/")
            let log = LogRecorder()
            try await fleet.withLoggedWorker("flickr-key", logger: log.logger(label: "ferry.worker")) {
                try await eventually(timeout: .seconds(300), interval: .milliseconds(300), "the listing to fail") {
                    try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'failed'") == 1
                }
            }
            let row = try await db.query("SELECT attempt, last_error FROM ferry.jobs").rows[0]
            #expect(try row.decode(Int.self, at: 0) == 1)
            let error = try row.decode(String?.self, at: 1) ?? ""
            #expect(error.contains("Invalid API Key (Key not found)"), "\(error)")
            let events = try await db.query("SELECT coalesce(string_agg(data::text, ' '), '') FROM ferry.events").rows[0].decode(String.self, at: 0)
            #expect(!error.contains(wrongKey) && !events.contains(wrongKey), "the key is never shown")
            #expect(!log.all.isEmpty && !log.all.joined(separator: "\n").contains(wrongKey), "nor logged by the worker")
            #expect(try await count(db, "SELECT count(*) FROM ferry.jobs") == 1, "no children")
            #expect(Self.tree(target).isEmpty)
        }
    }

    @Test("a photo whose id, server or secret tries ../ is skipped; titles never shape paths; children carry no URL", .tags(.fast))
    func hostileIDs() throws {
        let root = "/srv/flickr/"
        let job = UUID()
        for id in ["../../etc/passwd", "..", "a/b", "", "x\u{0}y"] {
            let photo = FlickrPhotoInfo(id: id, owner: "o", secret: "s", server: "1", title: "t")
            #expect(FlickrPhotostreamHandler.child(photo, userID: "1@N01", jobID: job, root: root, size: nil, account: "f") == nil, "\(id)")
        }
        for (server, secret) in [("..", "abc"), ("1", "../x"), ("1/2", "abc"), ("1", "a%2e"), ("", "abc"), ("1", String(repeating: "a", count: 65))] {
            let photo = FlickrPhotoInfo(id: "123", owner: "o", secret: secret, server: server, title: "t")
            #expect(FlickrPhotostreamHandler.child(photo, userID: "1@N01", jobID: job, root: root, size: nil, account: "f") == nil, "\(server) \(secret)")
        }
        let photo = FlickrPhotoInfo(id: "123", owner: "o", secret: "abc", server: "65535", title: "../../../etc/passwd", ownerName: "Owner", dateUpload: 1_700_000_000)
        let child = try #require(FlickrPhotostreamHandler.child(photo, userID: "1@N01", jobID: job, root: root, size: "b", account: "f"))
        #expect(child.destination == "/srv/flickr/123_b.jpg")
        #expect(child.source == "flickr:1@N01/photo/123")
        #expect(child.account == nil, "photo downloads do not count against the account's cap")
        #expect(child.details["photo"] == .object(["server": .string("65535"), "secret": .string("abc"), "size": .string("b")]))
        #expect(child.details["account"] == .string("f"))
        #expect(child.idempotencyKey == "\(job.uuidString.lowercased())/flickr/123")
        #expect(child.metadata?["title"]?.stringValue == "../../../etc/passwd")
        #expect(child.metadata?["posted"]?.stringValue == "2023-11-14T22:13:20Z")
        #expect(child.details["root"]?.stringValue == root)
    }
}
