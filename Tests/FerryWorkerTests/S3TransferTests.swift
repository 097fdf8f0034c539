import AsyncHTTPClient
import Crypto
import FerryClient
import FerryCore
import FerryS3
import FerryStore
import FerryTestSupport
import Foundation
import Logging
import NIOCore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Workers moving files to and from a real S3 implementation (moto) over loopback: in the test's process
/// (`InProcessFleet`), and `ferry worker` processes where a kill -9 is the test.
@Suite("S3 transfers", .tags(.postgres, .s3), .serialized)
struct S3TransferTests {
    static let keyID = "AKIAFERRYTEST0000001"
    static let secret = "ferry-test-secret-access-key-0000000000000"

    /// A fresh bucket on the test server, a client for checking it, and an account `s3` pointing at it.
    struct Setup {
        let db: TestDatabase
        let url: String
        let bucket: String
        let client: S3Client
        let dir: String
    }

    static func setUp(_ label: String) async throws -> Setup {
        let url = try MotoServer.url.get()
        let db = try await TestDatabase.make(label)
        let bucket = "ferry-\(label.replacingOccurrences(of: "_", with: "-"))-\(UUID().uuidString.prefix(8).lowercased())"
        let client = S3Client(
            httpClient: .shared, configuration: S3Configuration(region: "us-east-1", endpoint: try S3Endpoint(url: url), addressingStyle: .path),
            credentials: S3Credentials(accessKeyID: keyID, secretAccessKey: secret), logger: Logger(label: "test"))
        try await client.createBucket(bucket: bucket)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-s3-\(label)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try keyID.write(toFile: dir + "/key-id", atomically: true, encoding: .utf8)
        let added = try await FerryProcess.run(
            ["account", "add", "s3", "--provider", "s3", "--region", "us-east-1", "--endpoint-url", url, "--path-style",
             "--access-key-id-file", dir + "/key-id", "--secret-access-key-file", "-"],
            databaseURL: db.url, stdin: secret + "\n", environment: DropboxAccounts.environment)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("keys verified"), "\(added.stdout)")
        return Setup(db: db, url: url, bucket: bucket, client: client, dir: dir)
    }

    /// Another account on the same store (same keys): copies between it and `s3` cross accounts, so they stream
    /// through the worker instead of being copied inside the store.
    static func addAccount(_ setup: Setup, name: String) async throws {
        let added = try await FerryProcess.run(
            ["account", "add", name, "--provider", "s3", "--region", "us-east-1", "--endpoint-url", setup.url, "--path-style",
             "--access-key-id-file", setup.dir + "/key-id", "--secret-access-key-file", "-"],
            databaseURL: setup.db.url, stdin: secret + "\n", environment: DropboxAccounts.environment)
        #expect(added.status == 0, "\(added.stderr)")
    }

    static func worker(_ setup: Setup, name: String, _ extra: [String] = []) throws -> BackgroundProcess {
        try BackgroundProcess(
            ferry: ["worker", "--name", name, "--heartbeat-interval", "0.3", "--rescue-after", "4", "--poll-interval", "0.5",
                    "--log-level", "info", "--retry-base", "0.2"] + extra,
            databaseURL: setup.db.url, environment: DropboxAccounts.environment)
    }

    /// SHA-256 (hex) of an object, streamed.
    static func objectSHA256(_ client: S3Client, _ bucket: String, _ key: String) async throws -> String {
        let download = try await client.getObject(bucket: bucket, key: key)
        var hash = SHA256()
        for try await piece in download.body { piece.withUnsafeReadableBytes { hash.update(bufferPointer: $0) } }
        return hash.finalize().map { String(format: "%02x", $0) }.joined()
    }

    static func unfinishedUploads(_ setup: Setup) async throws -> Int {
        try await setup.client.listMultipartUploads(bucket: setup.bucket).uploads.count
    }

    @Test("20 photos and a 100 MiB file go up through two workers (multipart with checked ETags) and come back byte for byte through a prefix fetch")
    func roundTrip() async throws {
        try await InProcessFleet.run("s3_round") { fleet in try await Self.roundTrip(fleet) }
    }

    static func roundTrip(_ fleet: InProcessFleet) async throws {
        let setup = try await fleet.s3("s3_round")
        defer { try? FileManager.default.removeItem(atPath: setup.dir) }
        var files = [String]()
        for index in 0..<20 {
            let path = "\(setup.dir)/IMG \(1000 + index).jpg"
            try DropboxAccounts.randomFile(path, size: Int.random(in: 100_000...900_000))
            files.append(path)
        }
        let big = setup.dir + "/video.mov"
        try DropboxAccounts.randomFile(big, size: 100 * 1024 * 1024 + 12_345)
        files.append(big)
        try await fleet.upload(files, to: "s3:s3:\(setup.bucket)/camera/", batch: "up", options: ["content_type": .commandLine("image/jpeg")])

        let log = LogRecorder()
        let workers = try (0..<2).map { try fleet.worker("s3-\($0)", concurrency: 4, chunkMiB: 8, logger: log.logger(label: "ferry.worker")) }
        try await eventually(timeout: .seconds(300), interval: .milliseconds(300), "the uploads to finish") {
            try await WorkerFixtures.batchDone(setup.db, "up")
        }
        let failed = try await setup.db.query("SELECT source, last_error FROM ferry.jobs WHERE batch = 'up' AND state <> 'succeeded'").rows
        #expect(failed.isEmpty, "\(failed.map { (try? $0.decode(String?.self, at: 1)) ?? nil })")
        for file in files {
            let key = "camera/" + (file as NSString).lastPathComponent
            #expect(try await Self.objectSHA256(setup.client, setup.bucket, key) == DropboxAccounts.sha256(file), "\(key)")
        }
        let video = try await setup.client.headObject(bucket: setup.bucket, key: "camera/video.mov")
        #expect(video.etag.hasSuffix("-13\""), "100 MiB in 8 MiB parts is a 13-part upload: \(video.etag)")
        #expect(video.contentType == "image/jpeg")
        let parts = try await count(
            setup.db, "SELECT count(*) FROM ferry.events WHERE type = 'progress' AND data->'session' ? 'upload_id'")
        #expect(parts == 13, "each part but none of the single PUTs is a progress event")
        #expect(try await Self.unfinishedUploads(setup) == 0)

        // Back again: one listing job fans out a child per object.
        let target = setup.dir + "/back/"
        try await fleet.enqueue(.fetch, "s3:s3:\(setup.bucket)/camera/", to: target, batch: "down", options: ["page_size": .commandLine("7")])
        try await eventually(timeout: .seconds(300), interval: .milliseconds(300), "the fetches to finish") {
            try await WorkerFixtures.batchDone(setup.db, "down")
        }
        #expect(try await count(setup.db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'down' AND state = 'succeeded'") == 22)
        for file in files {
            let name = (file as NSString).lastPathComponent
            #expect(try DropboxAccounts.sha256(target + name) == DropboxAccounts.sha256(file), "\(name)")
            // Each file keeps its object's Last-Modified as its modification time.
            let object = try await setup.client.headObject(bucket: setup.bucket, key: "camera/" + name)
            let local = try FileManager.default.attributesOfItem(atPath: target + name)[.modificationDate] as? Date
            #expect(local.map { Int64($0.timeIntervalSince1970) } == RemoteTimestamp.http(object.lastModified).map { Int64($0.timeIntervalSince1970) }, "\(name)")
        }

        // The prefix again, with one object replaced: only that one is downloaded; the others (the multipart video
        // by size and time, the rest by size and MD5) are skipped as unchanged.
        let replaced = Data(repeating: 0x5A, count: 4321)
        _ = try await setup.client.putObject(
            bucket: setup.bucket, key: "camera/IMG 1000.jpg", body: .bytes(ByteBuffer(bytes: replaced)))
        try await fleet.enqueue(.fetch, "s3:s3:\(setup.bucket)/camera/", to: target, batch: "again")
        try await eventually(timeout: .seconds(300), interval: .milliseconds(300), "the second fetch to finish") {
            try await WorkerFixtures.batchDone(setup.db, "again")
        }
        try await fleet.stop(workers)
        let skipped = try await setup.db.query(
            "SELECT source FROM ferry.jobs WHERE batch = 'again' AND state = 'succeeded' AND result->>'skipped' = 'unchanged' ORDER BY 1"
        ).rows.map { try $0.decode(String.self, at: 0) }
        #expect(skipped.count == 20 && !skipped.contains { $0.hasSuffix("IMG 1000.jpg") }, "\(skipped)")
        #expect(FileManager.default.contents(atPath: target + "IMG 1000.jpg") == replaced)
        #expect(try await fleet.projectionClean(), "ferry projection verify would pass")
        // The keys are sealed: neither the secret nor the key id is in the database's text or the workers' logs.
        let dump = try await setup.db.query("SELECT string_agg(t::text, ' ') FROM ferry.accounts t").rows[0].decode(String.self, at: 0)
        #expect(!dump.contains(Self.secret) && !dump.contains(Self.keyID))
        #expect(!log.all.joined().contains(Self.secret))
    }

    @Test("kill -9 in the middle of a multipart upload: the next attempt resumes the same upload and sends no listed part again", .tags(.process))
    func resumeAfterKill() async throws {
        let setup = try await Self.setUp("s3_kill")
        defer { try? FileManager.default.removeItem(atPath: setup.dir) }
        let file = setup.dir + "/archive.tar"
        try DropboxAccounts.randomFile(file, size: 150 * 1024 * 1024 + 7)
        let enqueued = try await FerryProcess.run(
            ["enqueue", "upload", file, "--to", "s3:s3:\(setup.bucket)/backups/archive.tar", "--max-attempts", "5"], databaseURL: setup.db.url)
        #expect(enqueued.status == 0, "\(enqueued.stderr)")
        let job = enqueued.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        func recordedParts() async throws -> [(attempt: Int, part: Int, upload: String)] {
            try await setup.db.query(
                """
                SELECT (SELECT count(*) FROM ferry.events c WHERE c.job_id = e.job_id AND c.type = 'claimed' AND c.version < e.version),
                       (data->'session'->>'part')::int, data->'session'->>'upload_id'
                  FROM ferry.events e WHERE job_id = $1::uuid AND type = 'progress' ORDER BY version
                """, [job]
            ).rows.map { (try $0.decode(Int.self, at: 0), try $0.decode(Int.self, at: 1), try $0.decode(String.self, at: 2)) }
        }

        let first = try Self.worker(setup, name: "s3-first", ["--chunk-size", "5"])
        // Killed from a process of its own: a late kill from a starved test task would find the upload done.
        try await WorkerFixtures.kill(
            first, in: setup.db, when: "SELECT count(*) FROM ferry.events WHERE job_id = '\(try #require(UUID(uuidString: job)))'::uuid AND type = 'progress'", reaches: 4)
        let beforeKill = try await recordedParts()
        #expect(try await Self.unfinishedUploads(setup) == 1, "the killed attempt left its upload open")

        let second = try Self.worker(setup, name: "s3-second", ["--chunk-size", "5"])
        try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "the upload to finish") {
            try await count(setup.db, "SELECT count(*) FROM ferry.jobs WHERE job_id = $1::uuid AND state = 'succeeded'", [job]) == 1
        }
        second.signal(SIGTERM)
        _ = try await second.waitForExit()

        let all = try await recordedParts()
        let later = all.dropFirst(beforeKill.count)
        #expect(Set(all.map(\.upload)).count == 1, "one multipart upload across both attempts")
        #expect(Set(later.map(\.attempt)) == [2], "the rest was recorded by the second attempt")
        let earlier = Set(beforeKill.map(\.part))
        #expect(later.allSatisfy { !earlier.contains($0.part) }, "no part recorded before the kill was sent again")
        #expect((27...31).contains(all.count), "31 parts of 5 MiB; parts in flight at the kill (up to 4) may be kept by the store unrecorded")
        #expect(second.log.contains("resuming multipart upload"))
        #expect(try await Self.objectSHA256(setup.client, setup.bucket, "backups/archive.tar") == DropboxAccounts.sha256(file))
        #expect(try await Self.unfinishedUploads(setup) == 0)
    }

    @Test("cancelling a multipart upload aborts it: no parts are left to bill")
    func cancelAborts() async throws {
        try await InProcessFleet.run("s3_cancel") { fleet in try await Self.cancelAborts(fleet) }
    }

    static func cancelAborts(_ fleet: InProcessFleet) async throws {
        let setup = try await fleet.s3("s3_cancel")
        defer { try? FileManager.default.removeItem(atPath: setup.dir) }
        let file = setup.dir + "/huge.bin"
        try DropboxAccounts.randomFile(file, size: 400 * 1024 * 1024)
        let job = try await fleet.enqueue(.upload, file, to: "s3:s3:\(setup.bucket)/huge.bin")
        let log = LogRecorder()
        let worker = try fleet.worker("s3-cancel", chunkMiB: 5, logger: log.logger(label: "ferry.worker"))
        try await eventually(timeout: .seconds(300), interval: .milliseconds(50), "the upload to be under way") {
            try await count(setup.db, "SELECT count(*) FROM ferry.events WHERE job_id = $1::uuid AND type = 'progress'", [job]) >= 2
        }
        #expect(try await Self.unfinishedUploads(setup) == 1)
        // As `ferry cancel JOB` cancels it.
        let cancelled = try await fleet.store.cancel(.job(try #require(UUID(uuidString: job))), requestedBy: "test")
        #expect(cancelled.count == 1, "\(cancelled)")
        try await eventually(timeout: .seconds(300), interval: .milliseconds(100), "the job to be cancelled") {
            try await count(setup.db, "SELECT count(*) FROM ferry.jobs WHERE job_id = $1::uuid AND state = 'cancelled'", [job]) == 1
        }
        try await eventually(timeout: .seconds(300), interval: .milliseconds(100), "the upload to be aborted") {
            try await Self.unfinishedUploads(setup) == 0
        }
        try await fleet.stop([worker])
        #expect(log.all.contains { $0.contains("aborting the multipart upload") }, "\(log.all.suffix(20))")
    }

    @Test("a prefix fetch of 1,000 objects, killed mid-listing, gives exactly 1,000 files", .tags(.process))
    func prefixFetchThroughKill() async throws {
        let setup = try await Self.setUp("s3_prefix")
        defer { try? FileManager.default.removeItem(atPath: setup.dir) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for slot in 0..<8 {
                group.addTask {
                    for index in stride(from: slot, to: 1000, by: 8) {
                        let body = ByteBuffer(string: "object \(index)\n" + String(repeating: "x", count: index))
                        _ = try await setup.client.putObject(
                            bucket: setup.bucket, key: "feed/\(index / 100)/item-\(index).txt", body: .bytes(body))
                    }
                }
            }
            try await group.waitForAll()
        }
        let target = setup.dir + "/feed/"
        let enqueued = try await FerryProcess.run(
            ["enqueue", "fetch", "s3:s3:\(setup.bucket)/feed/", "--to", target, "--recursive", "--option", "page_size=40", "--batch", "feed"],
            databaseURL: setup.db.url)
        #expect(enqueued.status == 0, "\(enqueued.stderr)")
        let parent = enqueued.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let first = try Self.worker(setup, name: "s3-list-1", ["--concurrency", "2"])
        try await WorkerFixtures.kill(
            first, in: setup.db, when: "SELECT count(*) FROM ferry.events WHERE job_id = '\(try #require(UUID(uuidString: parent)))'::uuid AND type = 'progress'", reaches: 3)
        let listedBefore = try await count(setup.db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'feed'")
        #expect(listedBefore < 1001, "killed before the listing ended")
        let second = try Self.worker(setup, name: "s3-list-2", ["--concurrency", "8"])
        try await eventually(timeout: .seconds(300), interval: .milliseconds(300), "the batch to finish") {
            try await WorkerFixtures.batchDone(setup.db, "feed")
        }
        second.signal(SIGTERM)
        _ = try await second.waitForExit()
        #expect(try await count(setup.db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'feed'") == 1001)
        #expect(try await count(setup.db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'feed' AND state <> 'succeeded'") == 0)
        var count = 0
        let walker = FileManager.default.enumerator(atPath: target)
        while let path = walker?.nextObject() as? String {
            guard path.hasSuffix(".txt") else { continue }
            count += 1
            let index = Int(path.split(separator: "-").last!.dropLast(4))!
            let text = try String(contentsOfFile: target + path, encoding: .utf8)
            #expect(text == "object \(index)\n" + String(repeating: "x", count: index), "\(path)")
        }
        #expect(count == 1000)
        let hidden = try FileManager.default.subpathsOfDirectory(atPath: target).filter { $0.hasSuffix(".part") }
        #expect(hidden.isEmpty)
    }
}
