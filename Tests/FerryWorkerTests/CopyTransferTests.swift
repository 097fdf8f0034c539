import Crypto
import FerryClient
import FerryCore
import FerryS3
import FerryStore
import FerryTestSupport
import Foundation
import NIOCore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `ferry enqueue copy`: real workers stream files between the Dropbox dev server and S3 (moto), part by part,
/// with no local copy; byte-for-byte checks on both sides, a kill -9 mid-transfer, and copies made again. The cases
/// without a kill run their workers and the dev server in the test's process (`InProcessFleet`; moto runs outside).
@Suite("copies between providers", .tags(.postgres, .s3), .serialized)
struct CopyTransferTests {
    /// A copy's default (`ferry enqueue copy` compares before it writes unless `--no-if-changed`).
    static let ifChanged: [String: OptionValue] = ["if_changed": .json(.bool(true))]

    /// `ferry enqueue copy SOURCE --to TO --batch BATCH [options]` through FerryClient; answers the job's id.
    @discardableResult
    static func copy(
        _ fleet: InProcessFleet, _ source: String, to: String, batch: String, _ options: [String: OptionValue] = ifChanged,
        maxAttempts: Int64? = nil
    ) async throws -> String {
        try await fleet.enqueue(.copy, source, to: to, batch: batch, options: options, maxAttempts: maxAttempts)
    }

    static func sha256(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    static func enqueue(_ db: TestDatabase, _ arguments: [String]) async throws -> String {
        let result = try await FerryProcess.run(["enqueue", "copy"] + arguments, databaseURL: db.url)
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func states(_ db: TestDatabase, _ batch: String) async throws -> [String: Int] {
        var states = [String: Int]()
        for row in try await db.query("SELECT state, count(*) FROM ferry.jobs WHERE batch = $1 GROUP BY state", [batch]).rows {
            states[try row.decode(String.self, at: 0)] = try row.decode(Int.self, at: 1)
        }
        return states
    }

    @Test(
        "a Dropbox folder of 200 files in subfolders and a 100 MiB file goes to S3 through a kill -9: every object equals its source, the multipart upload resumed, none left open; copied again, nothing is enqueued",
        .tags(.process))
    func dropboxToS3() async throws {
        let setup = try await S3TransferTests.setUp("copy_dbx_s3")
        defer { try? FileManager.default.removeItem(atPath: setup.dir) }
        let server = try await DevServerProcess()
        let refreshToken = try await DropboxAccounts.add("box", server: server, databaseURL: setup.db.url)
        try await DropboxFetchTests.seed(server, account: "box", folder: "/Camera/2025", count: 120, size: 20_000)
        try await DropboxFetchTests.seed(server, account: "box", folder: "/Camera/2026/jan", count: 80, size: 45_000)
        let video = Data((0..<(100 * 1024 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 13) })
        try await DropboxFetchTests.upload(
            server, refreshToken: refreshToken, path: "/Camera/video/" + DropboxFetchTests.seededName(0), data: video)
        let parent = try await Self.enqueue(
            setup.db, ["dropbox:box:/Camera", "--recursive", "--to", "s3:s3:\(setup.bucket)/cam/", "--batch", "copy", "--max-attempts", "5"])
        let big = "s3:s3:\(setup.bucket)/cam/video/" + DropboxFetchTests.seededName(0)

        let first = try TestWorker.transfers(setup.db, name: "copy-first", ["--chunk-size", "5", "--concurrency", "8"])
        let parts = "SELECT count(*) FROM ferry.events e JOIN ferry.jobs j USING (job_id) WHERE j.destination = '\(big)' AND e.type = 'progress' AND e.data->'session' ? 'upload_id'"
        let killer = try WorkerFixtures.killWhen(setup.db, pid: first.pid, count: parts, reaches: 4)
        _ = try await first.waitForExit(timeout: .seconds(600))
        try await eventually(timeout: .seconds(300), "the killer to exit") { !killer.isRunning }
        #expect(try await Self.states(setup.db, "copy")["succeeded", default: 0] < 202, "the kill came mid-copy")
        #expect(try await S3TransferTests.unfinishedUploads(setup) == 1, "the killed attempt left its upload open")

        let second = try TestWorker.transfers(setup.db, name: "copy-second", ["--chunk-size", "5", "--concurrency", "8"])
        try await eventually(timeout: .seconds(900), interval: .milliseconds(300), "the copy to finish") {
            try await WorkerFixtures.batchDone(setup.db, "copy")
        }
        #expect(try await Self.states(setup.db, "copy") == ["succeeded": 202], "the folder job and 201 children")
        // The destination was empty when listed: every child went without a look there first.
        let hinted = try await count(
            setup.db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'copy' AND spec->'from'->>'to_absent' = 'true'")
        #expect(hinted == 201)
        let uploads = try await setup.db.query(
            "SELECT DISTINCT e.data->'session'->>'upload_id' FROM ferry.events e JOIN ferry.jobs j USING (job_id) WHERE j.destination = $1 AND e.type = 'progress'",
            [big]).rows.count
        #expect(uploads == 1, "the second attempt resumed the same multipart upload")
        #expect(second.log.contains("resuming multipart upload"))
        #expect(try await S3TransferTests.unfinishedUploads(setup) == 0)

        // Byte for byte: every object is its Dropbox file, at its path below the folder.
        for (folder, count) in [("2025", 120), ("2026/jan", 80), ("video", 1)] {
            for index in 0..<count {
                let name = folder + "/" + DropboxFetchTests.seededName(index)
                let stored = try #require(FileManager.default.contents(atPath: server.storedFile(account: "box", path: "/Camera/" + name)))
                #expect(try await S3TransferTests.objectSHA256(setup.client, setup.bucket, "cam/" + name) == Self.sha256(stored), "\(name)")
            }
        }
        let object = try await setup.client.headObject(bucket: setup.bucket, key: "cam/video/" + DropboxFetchTests.seededName(0))
        #expect(object.etag.hasSuffix("-20\""), "20 parts of 5 MiB: \(object.etag)")
        #expect(object.metadata["dropbox-content-hash"] != nil && object.metadata["mtime"] != nil, "\(object.metadata)")
        let result = try await DropboxFetchTests.result(setup.db, parent)
        #expect(result["files"]?.intValue == 201, "\(result)")

        // The same copy again: every file's version was copied, so the listing enqueues nothing.
        let again = try await Self.enqueue(setup.db, ["dropbox:box:/Camera/", "--to", "s3:s3:\(setup.bucket)/cam/", "--batch", "again"])
        try await eventually(timeout: .seconds(300), interval: .milliseconds(300), "the second copy") {
            try await WorkerFixtures.batchDone(setup.db, "again")
        }
        #expect(try await Self.states(setup.db, "again") == ["succeeded": 1], "only the listing ran")
        let second2 = try await DropboxFetchTests.result(setup.db, again)
        #expect(second2["files"]?.intValue == 201, "\(second2)")
        second.signal(SIGTERM)
        _ = try await second.waitForExit()
        let verify = try await FerryProcess.run(["projection", "verify"], databaseURL: setup.db.url)
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
    }

    @Test("S3 objects go to Dropbox with their bytes and modification times; one changed object is copied again and the rest skipped; a single object keeps its name")
    func s3ToDropbox() async throws {
        try await InProcessFleet.run("copy_s3_dbx") { fleet in try await Self.s3ToDropbox(fleet) }
    }

    static func s3ToDropbox(_ fleet: InProcessFleet) async throws {
        let setup = try await fleet.s3("copy_s3_dbx")
        defer { try? FileManager.default.removeItem(atPath: setup.dir) }
        let server = fleet.server
        let refreshToken = try await fleet.addDropbox("box")
        var objects = [String: Data]()
        for (index, key) in ["in/a.jpg", "in/b.jpg", "in/sub/c.jpg", "in/sub/deeper/d.mov", "in/big.bin"].enumerated() {
            let size = key == "in/big.bin" ? 9 * 1024 * 1024 + 5 : 1_000 + index * 7_919
            let data = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) })
            objects[key] = data
            _ = try await setup.client.putObject(bucket: setup.bucket, key: key, body: .bytes(ByteBuffer(bytes: data)), metadata: ["mtime": "1700000000.5"])
        }
        try await Self.copy(fleet, "s3:s3:\(setup.bucket)/in/", to: "dropbox:box:/FromS3/", batch: "first")
        let worker = try fleet.worker("copy-s3", chunkMiB: 4)
        try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "the first copy") { try await WorkerFixtures.batchDone(setup.db, "first") }
        #expect(try await Self.states(setup.db, "first") == ["succeeded": 6])
        // The destination folder did not exist when listed: every child went without a get_metadata first.
        #expect(try await count(
            setup.db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'first' AND spec->'from'->>'to_absent' = 'true'") == 5)
        for (key, data) in objects {
            let path = "/FromS3/" + key.dropFirst(3)
            #expect(FileManager.default.contents(atPath: server.storedFile(account: "box", path: path)) == data, "\(path)")
        }
        // The objects' modification time (x-amz-meta-mtime, as rclone and Ferry write it) is the files' client_modified.
        let form = "grant_type=refresh_token&refresh_token=\(refreshToken)&client_id=\(DevServerProcess.appKey)&client_secret=\(server.appSecret)"
        let grant = try await server.request("POST", "/oauth2/token", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Data(form.utf8))
        let access = try #require(grant["access_token"]?.stringValue)
        let metadata = try await server.request(
            "POST", "/2/files/get_metadata", json: .object(["path": .string("/FromS3/sub/deeper/d.mov")]), headers: ["Authorization": "Bearer \(access)"])
        #expect(metadata["client_modified"]?.stringValue == "2023-11-14T22:13:20Z", "\(metadata)")

        // One object changes: a copy again (overwriting) moves only it.
        let changed = Data(repeating: 7, count: 4_321)
        _ = try await setup.client.putObject(bucket: setup.bucket, key: "in/b.jpg", body: .bytes(ByteBuffer(bytes: changed)))
        objects["in/b.jpg"] = changed
        let overwrite = Self.ifChanged.merging(["mode": .commandLine("overwrite")]) { $1 }
        try await Self.copy(fleet, "s3:s3:\(setup.bucket)/in/", to: "dropbox:box:/FromS3/", batch: "second", overwrite)
        try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "the second copy") { try await WorkerFixtures.batchDone(setup.db, "second") }
        #expect(try await Self.states(setup.db, "second") == ["succeeded": 2], "the listing and the one changed object")
        // The listing found b.jpg at the destination: its child looked there (and found other content).
        #expect(try await count(
            setup.db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'second' AND spec->'from'->>'to_absent' = 'true'") == 0)
        #expect(FileManager.default.contents(atPath: server.storedFile(account: "box", path: "/FromS3/b.jpg")) == changed)

        // The same folder again: every file's version was copied, so only the listing runs.
        try await Self.copy(fleet, "s3:s3:\(setup.bucket)/in/", to: "dropbox:box:/FromS3/", batch: "third", overwrite, maxAttempts: 2)
        let settled = try await setup.db.query("SELECT count(*) FROM ferry.jobs WHERE batch = 'third'").rows[0].decode(Int.self, at: 0)
        #expect(settled == 1)
        // A single object into a folder keeps its name.
        try await Self.copy(fleet, "s3:s3:\(setup.bucket)/in/sub/c.jpg", to: "dropbox:box:/One/", batch: "one")
        try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "the single copy") {
            let third = try await WorkerFixtures.batchDone(setup.db, "third")
            let one = try await WorkerFixtures.batchDone(setup.db, "one")
            return third && one
        }
        #expect(FileManager.default.contents(atPath: server.storedFile(account: "box", path: "/One/c.jpg")) == objects["in/sub/c.jpg"])
        let noneCopied = try await count(setup.db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'third' AND kind = 'copy' AND state = 'succeeded'")
        #expect(noneCopied == 1, "the listing only: the children of the same versions exist")
        try await fleet.stop([worker])

        // --no-if-changed: every file is copied again (children keyed by this job), and each one's check is skipped.
        try await Self.copy(fleet, "s3:s3:\(setup.bucket)/in/", to: "dropbox:box:/Again/", batch: "fresh", [:])
        // From SQL, in an application's transaction: the first worker settles it as ferry enqueue would.
        _ = try await setup.db.query(
            "SELECT ferry.enqueue('copy', $1, 'dropbox:box:/Sql/', '{\"batch\": \"sql\"}')", ["s3:s3:\(setup.bucket)/in/a.jpg"])
        let again = try fleet.worker("copy-again", chunkMiB: 4)
        try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "the fresh copy") {
            let fresh = try await WorkerFixtures.batchDone(setup.db, "fresh")
            let sql = try await WorkerFixtures.batchDone(setup.db, "sql")
            return fresh && sql
        }
        #expect(try await Self.states(setup.db, "fresh") == ["succeeded": 6])
        // Each small object was read whole in one GetObject (the copy replaces whatever is there): the same bytes.
        for (key, data) in objects where data.count <= 1 << 20 {
            let path = "/Again/" + key.dropFirst(3)
            #expect(FileManager.default.contents(atPath: server.storedFile(account: "box", path: path)) == data, "\(path)")
        }
        #expect(try await Self.states(setup.db, "sql") == ["succeeded": 1])
        #expect(FileManager.default.contents(atPath: server.storedFile(account: "box", path: "/Sql/a.jpg")) == objects["in/a.jpg"])
        try await fleet.stop([again])
        #expect(try await fleet.projectionClean(), "ferry projection verify would pass")
    }

    @Test("S3 prefix to S3: the folder job lists the destination's range per page; files it lacks are written without a look, files it holds are looked at and the same ones left alone; within one account the store copies them itself")
    func s3ToS3WithDestinationListing() async throws {
        try await InProcessFleet.run("copy_s3_s3") { fleet in try await Self.s3ToS3WithDestinationListing(fleet) }
    }

    static func s3ToS3WithDestinationListing(_ fleet: InProcessFleet) async throws {
        let setup = try await fleet.s3("copy_s3_s3")
        defer { try? FileManager.default.removeItem(atPath: setup.dir) }
        func content(_ index: Int) -> Data { Data((0..<(2_000 + index * 37)).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ index) }) }
        for index in 0..<30 {
            _ = try await setup.client.putObject(
                bucket: setup.bucket, key: "src/p/f\(100 + index)", body: .bytes(ByteBuffer(bytes: content(index))),
                metadata: ["mtime": "\(1_700_000_000 + index).25"])
        }
        // The destination holds the first ten as they are, the eleventh with other bytes of the same size.
        for index in 0..<10 {
            _ = try await setup.client.putObject(
                bucket: setup.bucket, key: "dst/p/f\(100 + index)", body: .bytes(ByteBuffer(bytes: content(index))))
        }
        _ = try await setup.client.putObject(
            bucket: setup.bucket, key: "dst/p/f110", body: .bytes(ByteBuffer(bytes: Data(repeating: 1, count: content(10).count))))
        // Another account for the destination: the bytes stream through the worker (one account would have the
        // store copy them itself; that case is below).
        try await fleet.addS3Account("s3b", url: setup.url)
        try await Self.copy(fleet, "s3:s3:\(setup.bucket)/src/p/", to: "s3:s3b:\(setup.bucket)/dst/p/", batch: "hint")
        let worker = try fleet.worker("copy-s3-s3")
        try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "the copy") { try await WorkerFixtures.batchDone(setup.db, "hint") }
        try await fleet.stop([worker])
        #expect(try await Self.states(setup.db, "hint") == ["succeeded": 31])

        var hinted = Set<String>(), skipped = Set<String>()
        for row in try await setup.db.query(
            "SELECT destination, spec->'from'->>'to_absent', result->>'skipped' FROM ferry.jobs WHERE batch = 'hint' AND spec->'from'->>'folder' IS NULL"
        ).rows {
            let name = String(try row.decode(String.self, at: 0).split(separator: "/").last!)
            if try row.decode(String?.self, at: 1) == "true" { hinted.insert(name) }
            if try row.decode(String?.self, at: 2) == "unchanged" { skipped.insert(name) }
        }
        #expect(hinted == Set((11..<30).map { "f\(100 + $0)" }), "the files the destination lacked: \(hinted.sorted())")
        #expect(skipped == Set((0..<10).map { "f\(100 + $0)" }), "the same files, looked at and left: \(skipped.sorted())")
        for index in 0..<30 {
            #expect(
                try await S3TransferTests.objectSHA256(setup.client, setup.bucket, "dst/p/f\(100 + index)") == Self.sha256(content(index)),
                "f\(100 + index)")
        }
        // The hinted small objects were read whole at once (no HeadObject): their stored modification time still
        // came along, from the GetObject's metadata.
        for index in 11..<30 {
            let copied = try await setup.client.headObject(bucket: setup.bucket, key: "dst/p/f\(100 + index)")
            #expect(copied.metadata["mtime"].flatMap(Double.init) == Double(1_700_000_000 + index) + 0.25, "f\(100 + index): \(copied.metadata)")
        }

        // A child whose object changed since its listing: the whole-object read's If-Match fails, and the copy
        // looks the object up afresh and copies its current version.
        let old = try await setup.client.putObject(bucket: setup.bucket, key: "src/q/late", body: .bytes(ByteBuffer(string: "listed")))
        let current = Data("changed since the listing".utf8)
        _ = try await setup.client.putObject(bucket: setup.bucket, key: "src/q/late", body: .bytes(ByteBuffer(bytes: current)))
        let store = setup.db.store()
        defer { store.client.close() }
        let from: JSONValue = .object([
            "provider": .string("s3"), "account": .string("s3"), "size": .int(6), "version": .string(old), "to_absent": .bool(true),
        ])
        _ = try await store.enqueue([
            JobSpec(
                jobID: UUIDv7.make(), kind: .copy, source: "s3:s3:\(setup.bucket)/src/q/late", destination: "s3:s3b:\(setup.bucket)/dst/q/late",
                account: "s3b", queue: "default", batch: "late", priority: 0, maxAttempts: 1, runAt: nil, idempotencyKey: nil,
                metadata: nil, bytesTotal: 6, details: ["from": from, "if_changed": .bool(true)])
        ])
        let late = try fleet.worker("copy-late")
        try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "the late copy") { try await WorkerFixtures.batchDone(setup.db, "late") }
        try await fleet.stop([late])
        #expect(try await Self.states(setup.db, "late") == ["succeeded": 1])
        #expect(try await S3TransferTests.objectSHA256(setup.client, setup.bucket, "dst/q/late") == Self.sha256(current))
        #expect(try await count(
            setup.db, "SELECT count(*) FROM ferry.jobs WHERE batch IN ('hint', 'late') AND result->>'server_side' = 'true'") == 0)

        // One account on both sides: the store copies each object itself (CopyObject pinned to the listed ETag,
        // one request per object), keeping the source's metadata; nothing streams through the worker.
        try await Self.copy(fleet, "s3:s3:\(setup.bucket)/src/p/", to: "s3:s3:\(setup.bucket)/inside/", batch: "inside")
        let inside = try fleet.worker("copy-inside")
        try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "the copy inside the store") {
            try await WorkerFixtures.batchDone(setup.db, "inside")
        }
        try await fleet.stop([inside])
        #expect(try await Self.states(setup.db, "inside") == ["succeeded": 31])
        #expect(try await count(
            setup.db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'inside' AND result->>'server_side' = 'true' AND bytes_done = bytes_total") == 30)
        for index in 0..<30 {
            let key = "inside/f\(100 + index)"
            #expect(try await S3TransferTests.objectSHA256(setup.client, setup.bucket, key) == Self.sha256(content(index)), "\(key)")
            let copied = try await setup.client.headObject(bucket: setup.bucket, key: key)
            #expect(copied.metadata["mtime"].flatMap(Double.init) == Double(1_700_000_000 + index) + 0.25, "\(key): \(copied.metadata)")
            #expect(copied.metadata.keys.sorted() == ["mtime"], "the source's own metadata: \(copied.metadata)")
        }
        // A key that needs encoding in x-amz-copy-source, copied on its own.
        let odd = "odd/a b ü+%&=.bin"
        _ = try await setup.client.putObject(bucket: setup.bucket, key: odd, body: .bytes(ByteBuffer(bytes: content(3))))
        try await Self.copy(fleet, "s3:s3:\(setup.bucket)/\(odd)", to: "s3:s3:\(setup.bucket)/inside2/", batch: "odd")
        let oddWorker = try fleet.worker("copy-odd")
        try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "the odd copy") { try await WorkerFixtures.batchDone(setup.db, "odd") }
        try await fleet.stop([oddWorker])
        #expect(try await Self.states(setup.db, "odd") == ["succeeded": 1])
        #expect(try await count(setup.db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'odd' AND result->>'server_side' = 'true'") == 1)
        #expect(try await S3TransferTests.objectSHA256(setup.client, setup.bucket, "inside2/a b ü+%&=.bin") == Self.sha256(content(3)))
        // Looked up (a single object, not listed): the copy carries Ferry's metadata, as a streamed one does.
        let single = try await setup.client.headObject(bucket: setup.bucket, key: "inside2/a b ü+%&=.bin")
        #expect(single.metadata["source-version"] != nil && single.metadata["mtime"] != nil, "\(single.metadata)")
    }
}
