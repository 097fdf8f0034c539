import FerryClient
import FerryCore
import FerryS3
import FerryTestSupport
import Foundation
import Testing

/// `--if-changed` on uploads: a tree uploaded again moves no data where the destination already holds the same
/// content, for a local directory, the Dropbox dev server and S3 (moto). Workers, producer and dev server in the
/// test's process (`InProcessFleet`), real PostgreSQL.
@Suite("uploads with --if-changed", .tags(.postgres), .serialized)
struct IfChangedUploadTests {
    /// Enqueues `files` to `destination` as `batch` (as `ferry enqueue upload FILE… --to DEST` does) and runs one
    /// worker (`--chunk-size chunkMiB`) until the batch is done.
    static func upload(
        _ fleet: InProcessFleet, _ files: [String], to destination: String, batch: String, _ options: [String: OptionValue] = [:],
        maxAttempts: Int64? = nil, chunkMiB: Int = 8
    ) async throws {
        try await fleet.upload(files, to: destination, batch: batch, options: options, maxAttempts: maxAttempts)
        let worker = try fleet.worker(batch, chunkMiB: chunkMiB)
        try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "batch \(batch)") {
            try await WorkerFixtures.batchDone(fleet.db, batch)
        }
        try await fleet.stop([worker])
    }

    static let ifChanged: [String: OptionValue] = ["if_changed": .json(.bool(true))]

    /// Jobs of `batch` that succeeded: all of them, and those that moved no data (`result->>'skipped'`).
    static func outcome(_ db: TestDatabase, _ batch: String) async throws -> (succeeded: Int, unchanged: Int, failed: Int) {
        let row = try await db.query(
            """
            SELECT count(*) FILTER (WHERE state = 'succeeded'),
                   count(*) FILTER (WHERE state = 'succeeded' AND result->>'skipped' = 'unchanged'),
                   count(*) FILTER (WHERE state = 'failed')
              FROM ferry.jobs WHERE batch = $1
            """, [batch]).rows[0]
        return (try row.decode(Int.self, at: 0), try row.decode(Int.self, at: 1), try row.decode(Int.self, at: 2))
    }

    static func photos(_ dir: String, count: Int, size: ClosedRange<Int> = 2_000...60_000) throws -> [String] {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return try (0..<count).map { index in
            let path = dir + "/IMG_\(1000 + index).jpg"
            try DropboxAccounts.randomFile(path, size: Int.random(in: size))
            return path
        }
    }

    static func modified(_ path: String) throws -> Date? {
        try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
    }

    @Test("local directory: copies keep the source's mtime; again with --if-changed nothing is copied and a new file is; a different file is refused without --if-changed and replaced with it")
    func localDirectory() async throws {
        try await InProcessFleet.run("ifchanged_local") { fleet in try await Self.localDirectory(fleet) }
    }

    static func localDirectory(_ fleet: InProcessFleet) async throws {
        let db = fleet.db
        let dir = try temporaryFolder("ifchanged-local")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var files = try Self.photos(dir + "/src", count: 5)
        let target = dir + "/dst/"
        try await Self.upload(fleet, files, to: target, batch: "first")
        #expect(try await Self.outcome(db, "first") == (5, 0, 0))
        for file in files {
            let copy = target + (file as NSString).lastPathComponent
            #expect(try DropboxAccounts.sha256(copy) == DropboxAccounts.sha256(file))
            #expect(try Self.modified(copy) == Self.modified(file), "the copy keeps the source's modification time")
        }

        files += try Self.photos(dir + "/more", count: 1).map { path in
            let moved = dir + "/src/IMG_2000.jpg"
            try FileManager.default.moveItem(atPath: path, toPath: moved)
            return moved
        }
        try await Self.upload(fleet, files, to: target, batch: "second", Self.ifChanged)
        #expect(try await Self.outcome(db, "second") == (6, 5, 0), "the five already there are skipped, the new one copied")
        // Counted apart: the batch says what was already there, and ferry wait does not report it as moved.
        let sizes = try files.prefix(5).map { try FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int64 ?? 0 }
        let counted = try await db.query("SELECT unchanged, unchanged_bytes FROM ferry.batch_status WHERE batch = 'second'").rows[0]
        #expect(try counted.decode(Int64.self, at: 0) == 5 && counted.decode(Int64.self, at: 1) == sizes.reduce(0, +))
        // (ferry wait's "1 transferred, 5 unchanged" from these counters: TreeEnqueueTests.) The counters agree with the jobs.
        #expect(try await fleet.projectionClean(), "ferry projection verify would pass")
        #expect(try DropboxAccounts.sha256(target + "IMG_2000.jpg") == DropboxAccounts.sha256(files[5]))

        // A different file of the same name: without --if-changed it is kept (the job fails); with it, replaced whole.
        try DropboxAccounts.randomFile(files[0], size: 1234)
        let copy = target + (files[0] as NSString).lastPathComponent
        let before = try DropboxAccounts.sha256(copy)
        try await Self.upload(fleet, [files[0]], to: target, batch: "third", maxAttempts: 1)
        #expect(try await Self.outcome(db, "third") == (0, 0, 1))
        let error = try await db.query("SELECT last_error FROM ferry.jobs WHERE batch = 'third'").rows[0].decode(String?.self, at: 0)
        #expect(error?.contains("already exists with different content") == true, "\(error ?? "")")
        #expect(try DropboxAccounts.sha256(copy) == before)
        try await Self.upload(fleet, [files[0]], to: target, batch: "fourth", Self.ifChanged, maxAttempts: 1)
        #expect(try await Self.outcome(db, "fourth") == (1, 0, 0))
        #expect(try DropboxAccounts.sha256(copy) == DropboxAccounts.sha256(files[0]), "the changed file replaced")
        #expect(try FileManager.default.contentsOfDirectory(atPath: target).allSatisfy { !$0.hasPrefix(".") }, "no temporary file left")
    }

    @Test("Dropbox: again with --if-changed uploads nothing (size and content_hash); a changed file goes up with mode=overwrite")
    func dropbox() async throws {
        try await InProcessFleet.run("ifchanged_dbx") { fleet in try await Self.dropbox(fleet) }
    }

    static func dropbox(_ fleet: InProcessFleet) async throws {
        let (server, db) = (fleet.server, fleet.db)
        try await fleet.addDropbox("box")
        let dir = try temporaryFolder("ifchanged-dbx")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let files = try Self.photos(dir, count: 6)
        try await Self.upload(fleet, files, to: "dropbox:box:/Cam/", batch: "first")
        #expect(try await Self.outcome(db, "first") == (6, 0, 0))
        let stored = server.storedFile(account: "box", path: "/Cam/IMG_1000.jpg")
        let before = try Self.modified(stored)

        try DropboxAccounts.randomFile(files[2], size: 7_777)
        try await Self.upload(fleet, files, to: "dropbox:box:/Cam/", batch: "second", Self.ifChanged.merging(["mode": .commandLine("overwrite")]) { $1 })
        #expect(try await Self.outcome(db, "second") == (6, 5, 0))
        #expect(try Self.modified(stored) == before, "an unchanged file is not written again")
        #expect(try DropboxAccounts.sha256(server.storedFile(account: "box", path: "/Cam/IMG_1002.jpg")) == DropboxAccounts.sha256(files[2]))
    }

    @Test("S3: Content-Type from the extension, mtime stored; again with --if-changed nothing goes up, multipart objects included", .tags(.s3))
    func s3() async throws {
        try await InProcessFleet.run("ifchanged_s3") { fleet in try await Self.s3(fleet) }
    }

    static func s3(_ fleet: InProcessFleet) async throws {
        let setup = try await fleet.s3("ifchanged_s3")
        defer { try? FileManager.default.removeItem(atPath: setup.dir) }
        var files = try Self.photos(setup.dir + "/src", count: 3)
        let big = setup.dir + "/src/clip.mov"
        try DropboxAccounts.randomFile(big, size: 11 * 1024 * 1024)
        files.append(big)
        let destination = "s3:s3:\(setup.bucket)/cam/"
        try await Self.upload(fleet, files, to: destination, batch: "first", chunkMiB: 5)
        #expect(try await Self.outcome(setup.db, "first") == (4, 0, 0))
        let photo = try await setup.client.headObject(bucket: setup.bucket, key: "cam/IMG_1000.jpg")
        #expect(photo.contentType == "image/jpeg")
        let clip = try await setup.client.headObject(bucket: setup.bucket, key: "cam/clip.mov")
        #expect(clip.contentType == "video/quicktime" && clip.etag.hasSuffix("-3\""), "\(clip)")
        let seconds = try #require(try Self.modified(big)).timeIntervalSince1970
        #expect(clip.metadata["mtime"].flatMap(Double.init).map { abs($0 - seconds) < 0.001 } == true, "\(clip.metadata)")

        try await Self.upload(fleet, files, to: destination, batch: "second", Self.ifChanged, chunkMiB: 5)
        #expect(try await Self.outcome(setup.db, "second") == (4, 4, 0))
        let again = try await setup.client.headObject(bucket: setup.bucket, key: "cam/clip.mov")
        #expect(again.lastModified == clip.lastModified && again.etag == clip.etag)

        // The job's metadata goes with the object as user metadata, where a header can carry it.
        // As a line of `ferry enqueue --from FILE`: the request with its metadata.
        let metadata = JSONValue.object(["Title": .string("Harbour at dawn"), "likes": .int(12), "caption": .string("Smørrebrød")])
        _ = try await fleet.client.enqueue([
            JobRequest(kind: .upload, source: files[0], to: "s3:s3:\(setup.bucket)/meta/", batch: "meta", metadata: metadata)
        ])
        let worker = try fleet.worker("meta")
        try await eventually(timeout: .seconds(300), "the metadata upload") { try await WorkerFixtures.batchDone(setup.db, "meta") }
        try await fleet.stop([worker])
        let meta = try await setup.client.headObject(bucket: setup.bucket, key: "meta/IMG_1000.jpg").metadata
        #expect(meta["title"] == "Harbour at dawn" && meta["likes"] == "12" && meta["caption"] == nil && meta["mtime"] != nil, "\(meta)")
    }
}
