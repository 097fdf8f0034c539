import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Postgres
import Testing

/// Workers fetching from the dev server in process (`InProcessFleet`): folders fanned out into child jobs, resumed
/// listings, thumbnails, checksums, cancels. The proof is in the jobs, the events, the server's counts and the files;
/// a worker killed mid-listing or mid-download is `DropboxFetchProcessTests`.
@Suite("Dropbox fetches", .tags(.postgres), .serialized)
struct DropboxFetchTests {
    static func seed(_ server: any DevServerControl, account: String, folder: String, count: Int, size: Int) async throws {
        _ = try await server.request(
            "POST", "/__dev/seed",
            json: .object(["account": .string(account), "folder": .string(folder), "count": .int(Int64(count)), "size": .int(Int64(size))]))
    }

    /// The name `/__dev/seed` gives file `index` of a batch of fewer than 100,000.
    static func seededName(_ index: Int) -> String {
        "file-" + String(format: "%05d", index) + ".bin"
    }

    /// Uploads `data` to `path` through the Dropbox API, as another app would.
    static func upload(
        _ server: any DevServerControl, refreshToken: String, path: String, data: Data, clientModified: String? = nil
    ) async throws {
        let form = "grant_type=refresh_token&refresh_token=\(refreshToken)&client_id=\(DevServerProcess.appKey)&client_secret=\(server.appSecret)"
        let grant = try await server.request(
            "POST", "/oauth2/token", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Data(form.utf8))
        let access = try #require(grant["access_token"]?.stringValue)
        var commit: [String: JSONValue] = ["path": .string(path), "mode": .string("overwrite")]
        if let clientModified { commit["client_modified"] = .string(clientModified) }
        let argument = JSONValue.object(commit).jsonText
        _ = try await server.request(
            "POST", "/2/files/upload",
            headers: ["Authorization": "Bearer \(access)", "Dropbox-API-Arg": argument, "Content-Type": "application/octet-stream"],
            body: data)
    }

    /// Regular files below `dir`, relative to it.
    static func localFiles(_ dir: String) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: dir)
        var files = [String]()
        while let item = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: dir + "/" + item, isDirectory: &isDirectory), !isDirectory.boolValue {
                files.append(item)
            }
        }
        return files.sorted()
    }

    static func result(_ db: TestDatabase, _ jobID: String) async throws -> JSONValue {
        let text = try await db.query("SELECT result::text FROM ferry.jobs WHERE job_id = $1::uuid", [jobID]).rows[0].decode(String?.self, at: 0)
        return try JSONValue.parse(try #require(text))
    }

    static func childCount(_ db: TestDatabase, _ batch: String, _ column: String = "job_id") async throws -> Int {
        try await count(
            db, "SELECT count(DISTINCT \(column)) FROM ferry.jobs WHERE batch = $1 AND spec->>'entry' = 'true'", [batch])
    }

    /// Every seeded file arrived once, byte for byte, and nothing else (no leftover temporary files).
    static func expectMirror(_ server: any DevServerControl, account: String, remote: String, local: String, count: Int) throws {
        let expected = (0..<count).map(seededName)
        #expect(localFiles(local) == expected)
        for name in expected {
            let ours = FileManager.default.contents(atPath: local + "/" + name)
            let theirs = FileManager.default.contents(atPath: server.storedFile(account: account, path: remote + "/" + name))
            #expect(ours != nil && ours == theirs, "\(name) differs")
        }
    }

    /// `--page-size N` as `ferry enqueue` passes it.
    static func pageSize(_ size: Int64) -> [String: OptionValue] { ["page_size": .json(.int(size))] }

    /// `--recursive` on a fetch: the provider option.
    static let recursive: [String: OptionValue] = ["recursive": .json(.bool(true))]

    @Test("a 2,500-file folder listed in pages of 1,000: every file arrives once, byte for byte")
    func largeFolder() async throws {
        try await InProcessFleet.run("dbx_fetch_big") { fleet in
            let server = fleet.server, db = fleet.db
            try await fleet.addDropbox("box")
            try await Self.seed(server, account: "box", folder: "/Big", count: 2500, size: 100)
            let dir = try temporaryFolder("big")
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let parent = try await fleet.enqueue(.fetch, "dropbox:box:/Big", to: dir + "/out/", batch: "big", options: Self.pageSize(1000))

            let workers = try (0..<2).map { try fleet.worker("fetch-\($0)", concurrency: 8) }
            try await fleet.waitForBatch("big")
            try await fleet.stop(workers)

            #expect(try await WorkerFixtures.batchDone(db, "big"))
            #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'big' AND state <> 'succeeded'") == 0)
            #expect(try await Self.childCount(db, "big") == 2500)
            #expect(try await Self.childCount(db, "big", "source") == 2500)
            let details = try await Self.result(db, parent)
            #expect(details["files"]?.intValue == 2500, "\(details)")
            #expect(details["pages"]?.intValue == 3, "\(details)")
            let fanOuts = try await count(
                db, "SELECT count(*) FROM ferry.events WHERE job_id = $1::uuid AND type = 'progress' AND data->'session' ? 'cursor'", [parent])
            #expect(fanOuts == 3, "one fan-out per page")
            try Self.expectMirror(server, account: "box", remote: "/Big", local: dir + "/out", count: 2500)
            let stats = try await server.stats()
            // One download per file, more only for attempts the log records (a rescue or a retry on a starved machine).
            let downloads = stats["requests_per_route"]?["files/download"]?.intValue ?? 0
            let attempts = try await count(db, """
                SELECT count(*) FROM ferry.events e JOIN ferry.jobs j ON j.job_id = e.job_id
                 WHERE j.batch = 'big' AND j.spec->>'entry' = 'true' AND e.type = 'claimed'
                """)
            #expect(downloads >= 2500 && downloads <= attempts, "\(downloads) downloads in \(attempts) attempts")
            let differences = try await fleet.projectionDifferences()
            #expect(differences.isEmpty, "ferry projection verify: \(differences)")
        }
    }

    @Test("an expired listing cursor (reset) starts the listing over without duplicate children")
    func cursorReset() async throws {
        try await InProcessFleet.run("dbx_fetch_reset") { fleet in
            let server = fleet.server, db = fleet.db
            try await fleet.addDropbox("box")
            try await Self.seed(server, account: "box", folder: "/Reset", count: 300, size: 40)
            try await server.setFaults(["latency_milliseconds": .int(1500)])
            let dir = try temporaryFolder("reset")
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let parent = try await fleet.enqueue(.fetch, "dropbox:box:/Reset", to: dir + "/out/", batch: "reset", options: Self.pageSize(50))

            let worker = try fleet.worker("reset", concurrency: 8)
            try await eventually(timeout: .seconds(300), interval: .milliseconds(100), "the first page to be fanned out") {
                try await count(db, "SELECT count(*) FROM ferry.jobs WHERE job_id = $1::uuid AND session ? 'cursor'", [parent]) == 1
            }
            _ = try await server.request("POST", "/__dev/reset-cursors", json: .object(["account": .string("box")]))
            // The next continue answers reset whatever the latency; the rest of the run can be quick.
            try await server.setFaults([:])
            try await fleet.waitForBatch("reset")
            try await fleet.stop([worker])

            let result = try await Self.result(db, parent)
            #expect((result["resets"]?.intValue ?? 0) >= 1, "\(result)")
            #expect(result["files"]?.intValue == 300, "\(result)")
            #expect(try await count(db, "SELECT attempt FROM ferry.jobs WHERE job_id = $1::uuid", [parent]) == 1)
            let stats = try await server.stats()
            #expect((stats["requests_per_route"]?["files/list_folder"]?.intValue ?? 0) >= 2, "listed again from the start")
            #expect(try await Self.childCount(db, "reset") == 300)
            #expect(try await Self.childCount(db, "reset", "source") == 300)
            try Self.expectMirror(server, account: "box", remote: "/Reset", local: dir + "/out", count: 300)
        }
    }

    @Test("--recursive mirrors nested folders; without it only the top level is fetched")
    func recursiveTree() async throws {
        try await InProcessFleet.run("dbx_fetch_tree") { fleet in
            let server = fleet.server, db = fleet.db
            try await fleet.addDropbox("box")
            let layout = [("/Tree", 3), ("/Tree/Albums", 2), ("/Tree/Albums/Summer 2026", 4), ("/Tree/Empty Not", 1)]
            for (folder, count) in layout { try await Self.seed(server, account: "box", folder: folder, count: count, size: 300) }
            let dir = try temporaryFolder("tree")
            defer { try? FileManager.default.removeItem(atPath: dir) }
            // Mixed case on purpose: local paths keep path_display, matched on path_lower.
            try await fleet.enqueue(.fetch, "dropbox:box:/tree", to: dir + "/all", batch: "deep", options: Self.recursive.merging(Self.pageSize(3)) { $1 })
            try await fleet.enqueue(.fetch, "dropbox:box:/Tree/", to: dir + "/top/", batch: "flat")
            try await fleet.enqueue(.fetch, "dropbox:box:/", to: dir + "/root/", batch: "whole", options: Self.recursive)

            let worker = try fleet.worker("tree", concurrency: 4)
            try await fleet.waitForBatch("deep")
            try await fleet.waitForBatch("flat")
            try await fleet.waitForBatch("whole")
            try await fleet.stop([worker])

            var expected = [String]()
            for (folder, count) in layout {
                let relative = String(folder.dropFirst("/Tree".count).drop(while: { $0 == "/" }))
                for index in 0..<count {
                    let name = (relative.isEmpty ? "" : relative + "/") + Self.seededName(index)
                    expected.append(name)
                    let ours = FileManager.default.contents(atPath: dir + "/all/" + name)
                    let theirs = FileManager.default.contents(atPath: server.storedFile(account: "box", path: "/Tree/" + name))
                    #expect(ours != nil && ours == theirs, "\(name)")
                }
            }
            #expect(Self.localFiles(dir + "/all") == expected.sorted())
            #expect(try await Self.childCount(db, "deep") == expected.count)
            #expect(Self.localFiles(dir + "/top") == (0..<3).map(Self.seededName))
            #expect(try await Self.childCount(db, "flat") == 3)
            #expect(Self.localFiles(dir + "/root") == expected.sorted().map { "Tree/" + $0 }, "the Dropbox root lists everything")
        }
    }

    @Test("--thumbnail w256h256 fetches JPEG thumbnails of images and skips other files")
    func thumbnails() async throws {
        try await InProcessFleet.run("dbx_fetch_thumbs") { fleet in
            let server = fleet.server, db = fleet.db
            let refreshToken = try await fleet.addDropbox("box")
            for (name, width, height) in [("a.png", 800, 600), ("b.PNG", 600, 1200), ("sub/c.png", 1000, 1000)] {
                try await Self.upload(server, refreshToken: refreshToken, path: "/Pics/" + name, data: Self.pngHeader(width: width, height: height))
            }
            try await Self.upload(server, refreshToken: refreshToken, path: "/Pics/notes.txt", data: Data("not an image".utf8))
            try await Self.seed(server, account: "box", folder: "/Pics", count: 2, size: 50)
            let dir = try temporaryFolder("thumbs")
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let parent = try await fleet.enqueue(
                .fetch, "dropbox:box:/Pics", to: dir + "/out/", batch: "thumbs",
                options: Self.recursive.merging(["thumbnail": .commandLine("w256h256")]) { $1 })

            let worker = try fleet.worker("thumbs", concurrency: 4)
            try await fleet.waitForBatch("thumbs")
            try await fleet.stop([worker])

            // Thumbnails are JPEG whatever the source, so their names say so.
            #expect(Self.localFiles(dir + "/out") == ["a.png.jpg", "b.PNG.jpg", "sub/c.png.jpg"])
            for (name, width, height) in [("a.png.jpg", 256, 192), ("b.PNG.jpg", 128, 256), ("sub/c.png.jpg", 256, 256)] {
                let bytes = try #require(FileManager.default.contents(atPath: dir + "/out/" + name))
                let size = Self.jpegSize([UInt8](bytes))
                #expect(size?.width == width && size?.height == height, "\(name) is a \(width)×\(height) JPEG, got \(String(describing: size))")
            }
            let result = try await Self.result(db, parent)
            #expect(result["skipped_not_image"]?.intValue == 3, "\(result)")
            #expect(result["files"]?.intValue == 3, "\(result)")
            #expect(try await Self.childCount(db, "thumbs") == 3)
            let stats = try await server.stats()
            #expect(stats["requests_per_route"]?["files/get_thumbnail_v2"]?.intValue == 3)
            #expect(stats["requests_per_route"]?["files/download"] == nil, "no file was downloaded whole")
        }
    }

    @Test("cancelling a throttled download removes its .part file")
    func cancelledDownloadLeavesNothing() async throws {
        try await InProcessFleet.run("dbx_fetch_cancel") { fleet in
            let server = fleet.server, db = fleet.db
            try await fleet.addDropbox("box")
            try await Self.seed(server, account: "box", folder: "/Video", count: 1, size: 24 * 1024 * 1024)
            try await server.setFaults(["download_bytes_per_second": .int(256 * 1024)])  // minutes: a busy test task still cancels midway
            let dir = try temporaryFolder("cancel")
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let job = try await fleet.enqueue(.fetch, "dropbox:box:/Video/\(Self.seededName(0))", to: dir + "/out/")

            let worker = try fleet.worker("cancel")
            try await eventually(timeout: .seconds(300), interval: .milliseconds(100), "a checkpoint to be recorded") {
                try await count(db, "SELECT count(*) FROM ferry.jobs WHERE (session->>'offset')::bigint > 0") == 1
            }
            #expect(Self.localFiles(dir + "/out").count == 1 && Self.localFiles(dir + "/out")[0].hasSuffix(".part"))
            let outcomes = try await fleet.cancel(job)
            #expect(outcomes.count == 1, "\(outcomes)")
            try await eventually(timeout: .seconds(300), interval: .milliseconds(100), "the job to be cancelled") {
                try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'cancelled'") == 1
            }
            try await fleet.stop([worker])
            #expect(Self.localFiles(dir + "/out") == [], "no .part file left")
        }
    }

    @Test("a file changed between listing and download: the new version is fetched and the result says so")
    func changedSinceListing() async throws {
        try await InProcessFleet.run("dbx_fetch_changed") { fleet in
            let server = fleet.server, db = fleet.db
            let refreshToken = try await fleet.addDropbox("box")
            try await Self.seed(server, account: "box", folder: "/Docs", count: 2, size: 500)
            // Slow enough that the lister can be stopped after the listing, before any download completes.
            try await server.setFaults(["latency_milliseconds": .int(3000)])
            let dir = try temporaryFolder("changed")
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let parent = try await fleet.enqueue(.fetch, "dropbox:box:/Docs", to: dir + "/out/", batch: "changed")
            // Stopped with no time to finish: a download it has begun is released, not completed (as a kill leaves it).
            let lister = try fleet.worker("lister", concurrency: 1) { $0.shutdownTimeout = .zero }
            try await eventually(timeout: .seconds(300), interval: .milliseconds(100), "the listing to be fanned out") {
                try await count(db, "SELECT count(*) FROM ferry.jobs WHERE job_id = $1::uuid AND session ? 'cursor'", [parent]) == 1
            }
            try await fleet.stop([lister])
            try await server.setFaults([:])
            let changed = Data(String(repeating: "new content\n", count: 40).utf8)
            try await Self.upload(server, refreshToken: refreshToken, path: "/Docs/" + Self.seededName(1), data: changed)

            let worker = try fleet.worker("fetcher", concurrency: 2)
            try await fleet.waitForBatch("changed")
            try await fleet.stop([worker])

            #expect(FileManager.default.contents(atPath: dir + "/out/" + Self.seededName(1)) == changed)
            let rows = try await db.query(
                "SELECT result::text FROM ferry.jobs WHERE batch = 'changed' AND spec->>'entry' = 'true' ORDER BY destination").rows
            let results = try rows.map { try JSONValue.parse(try $0.decode(String.self, at: 0)) }
            #expect(results.count == 2)
            #expect(results.first?["changed_since_listing"] == nil, "the untouched file is not flagged")
            #expect(results.last?["changed_since_listing"] == .bool(true), "\(results)")
            #expect(results.last?["bytes"]?.intValue == Int64(changed.count))
            #expect(results.last?["rev"] != results.last?["listed_rev"])
            #expect(try await Self.result(db, parent)["files"]?.intValue == 2)
        }
    }

    @Test("--sha256 on a single-file fetch: the right checksum passes, a wrong one fails the job and leaves no file")
    func sha256Check() async throws {
        try await InProcessFleet.run("dbx_fetch_sha") { fleet in
            let server = fleet.server, db = fleet.db
            try await fleet.addDropbox("box")
            let size = 3000
            try await Self.seed(server, account: "box", folder: "/One", count: 1, size: size)
            let dir = try temporaryFolder("sha")
            defer { try? FileManager.default.removeItem(atPath: dir) }
            // The seeded content is known: its line repeated up to the size.
            let line = Array("00000 /One/\(Self.seededName(0))\n".utf8)
            let expected = (0..<size).map { line[$0 % line.count] }
            try Data(expected).write(to: URL(fileURLWithPath: dir + "/expected"))
            let sha = try DropboxAccounts.sha256(dir + "/expected")
            let wrong = String(repeating: "0", count: 64)
            let source = "dropbox:box:/One/\(Self.seededName(0))"
            let good = try await fleet.enqueue(.fetch, source, to: dir + "/good/x.bin", options: ["sha256": .commandLine(sha)])
            let bad = try await fleet.enqueue(.fetch, source, to: dir + "/bad/", options: ["sha256": .commandLine(wrong)], maxAttempts: 1)

            let worker = try fleet.worker("sha")
            try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "both fetches to finish") {
                try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state IN ('succeeded', 'failed')") == 2
            }
            try await fleet.stop([worker])

            #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE job_id = $1::uuid AND state = 'succeeded'", [good]) == 1)
            #expect(FileManager.default.contents(atPath: dir + "/good/x.bin") == Data(expected))
            let failure = try await db.query("SELECT state, last_error FROM ferry.jobs WHERE job_id = $1::uuid", [bad]).rows[0]
            #expect(try failure.decode(String.self, at: 0) == "failed")
            #expect(try failure.decode(String?.self, at: 1)?.contains("SHA-256") == true)
            #expect(Self.localFiles(dir + "/bad").isEmpty, "nothing written, not even a temporary file")
        }
    }

    @Test("a fetched file carries the source's client_modified as its modification time, for a file and a folder's files")
    func keepsModificationTime() async throws {
        try await InProcessFleet.run("dbx_fetch_mtime") { fleet in
            let server = fleet.server
            let refreshToken = try await fleet.addDropbox("box")
            try await Self.upload(
                server, refreshToken: refreshToken, path: "/Old/a.jpg", data: Data(repeating: 7, count: 5000),
                clientModified: "2019-06-01T12:34:56Z")
            try await Self.upload(
                server, refreshToken: refreshToken, path: "/Old/b.jpg", data: Data(repeating: 8, count: 300),
                clientModified: "2003-02-01T00:00:01Z")
            let dir = try temporaryFolder("mtime")
            defer { try? FileManager.default.removeItem(atPath: dir) }
            try await fleet.enqueue(.fetch, "dropbox:box:/Old/a.jpg", to: dir + "/one/", batch: "mtime")
            try await fleet.enqueue(.fetch, "dropbox:box:/Old", to: dir + "/all/", batch: "mtime")
            let worker = try fleet.worker("mtime")
            try await fleet.waitForBatch("mtime")
            try await fleet.stop([worker])
            func modified(_ path: String) throws -> TimeInterval? {
                (try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date)?.timeIntervalSince1970
            }
            #expect(try modified(dir + "/one/a.jpg") == 1_559_392_496)
            #expect(try modified(dir + "/all/a.jpg") == 1_559_392_496)
            #expect(try modified(dir + "/all/b.jpg") == 1_044_057_601)
        }
    }

    @Test("a missing Dropbox path fails the fetch for good on its first attempt")
    func missingPath() async throws {
        try await InProcessFleet.run("dbx_fetch_missing") { fleet in
            let db = fleet.db
            try await fleet.addDropbox("box")
            let dir = try temporaryFolder("missing")
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let job = try await fleet.enqueue(.fetch, "dropbox:box:/Nope", to: dir + "/out/")
            let worker = try fleet.worker("missing")
            try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "the fetch to fail") {
                try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'failed'") == 1
            }
            try await fleet.stop([worker])
            let row = try await db.query("SELECT attempt, last_error FROM ferry.jobs WHERE job_id = $1::uuid", [job]).rows[0]
            #expect(try row.decode(Int.self, at: 0) == 1, "not retried")
            #expect(try row.decode(String?.self, at: 1)?.contains("not_found") == true)
        }
    }

    /// The first bytes of a PNG (signature and IHDR), which is all the dev server reads to make a thumbnail.
    static func pngHeader(width: Int, height: Int) -> Data {
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]
        for value in [width, height] { bytes += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
        bytes += [8, 2, 0, 0, 0, 0, 0, 0, 0] + [UInt8](repeating: 0, count: 200)
        return Data(bytes)
    }

    /// Width and height from a JPEG's start-of-frame marker.
    static func jpegSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var index = 2
        while index + 9 < bytes.count {
            guard bytes[index] == 0xFF else { return nil }
            let marker = bytes[index + 1]
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            if (0xC0...0xC3).contains(marker) {
                let height = Int(bytes[index + 5]) << 8 | Int(bytes[index + 6])
                let width = Int(bytes[index + 7]) << 8 | Int(bytes[index + 8])
                return (width, height)
            }
            index += 2 + length
        }
        return nil
    }
}
