import FerryCore
import FerryTestSupport
import Foundation
import Postgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Real `ferry` workers fetching from a real `ferry dev-server`: folders fanned out into child jobs, resumed
/// listings and downloads, thumbnails.
@Suite("Dropbox fetches", .tags(.postgres, .process), .serialized)
struct DropboxFetchTests {
    /// `ferry enqueue fetch …`; returns the job id.
    static func enqueueFetch(_ db: TestDatabase, _ source: String, to: String, _ options: [String]) async throws -> String {
        let result = try await FerryProcess.run(["enqueue", "fetch", source, "--to", to] + options, databaseURL: db.url)
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(result.lines.first?.trimmingCharacters(in: .whitespaces))
    }

    static func seed(_ server: DevServerProcess, account: String, folder: String, count: Int, size: Int) async throws {
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
        _ server: DevServerProcess, refreshToken: String, path: String, data: Data, clientModified: String? = nil
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

    static func waitForBatch(_ db: TestDatabase, _ batch: String) async throws {
        let result = try await FerryProcess.run(["wait", "--batch", batch, "--timeout", "1200"], databaseURL: db.url)
        #expect(result.status == 0, "ferry wait: \(result.stdout)\(result.stderr)")
    }

    static func stop(_ workers: [BackgroundProcess]) async throws {
        for worker in workers { worker.signal(SIGTERM) }
        for worker in workers { _ = try await worker.waitForExit() }
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
    static func expectMirror(_ server: DevServerProcess, account: String, remote: String, local: String, count: Int) throws {
        let expected = (0..<count).map(seededName)
        #expect(localFiles(local) == expected)
        for name in expected {
            let ours = FileManager.default.contents(atPath: local + "/" + name)
            let theirs = FileManager.default.contents(atPath: server.storedFile(account: account, path: remote + "/" + name))
            #expect(ours != nil && ours == theirs, "\(name) differs")
        }
    }

    @Test("a 2,500-file folder listed in pages of 1,000: every file arrives once, byte for byte")
    func largeFolder() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("dbx_fetch_big")
        try await DropboxAccounts.add("box", server: server, databaseURL: db.url)
        try await Self.seed(server, account: "box", folder: "/Big", count: 2500, size: 100)
        let dir = try temporaryFolder("big")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let parent = try await Self.enqueueFetch(db, "dropbox:box:/Big", to: dir + "/out/", ["--page-size", "1000", "--batch", "big"])

        let workers = try (0..<2).map { try TestWorker.transfers(db, name: "fetch-\($0)", ["--concurrency", "8"]) }
        try await Self.waitForBatch(db, "big")
        try await Self.stop(workers)

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
        let verify = try await FerryProcess.run(["projection", "verify"], databaseURL: db.url)
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
    }

    @Test("kill -9 of the listing worker mid-listing: the next attempt resumes at the recorded cursor, no duplicates")
    func killMidListing() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("dbx_fetch_kill")
        try await DropboxAccounts.add("box", server: server, databaseURL: db.url)
        try await Self.seed(server, account: "box", folder: "/Big", count: 2500, size: 64)
        // Slow pages leave time to kill the worker between two of them (latency applies to every route).
        try await server.setFaults(["latency_milliseconds": .int(4000)])
        let dir = try temporaryFolder("kill-list")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let parent = try await Self.enqueueFetch(db, "dropbox:box:/Big", to: dir + "/out/", ["--page-size", "1000", "--batch", "crash"])

        let victim = try TestWorker.transfers(db, name: "victim", ["--concurrency", "4"])
        try await eventually(timeout: .seconds(300), interval: .milliseconds(100), "the first page to be fanned out") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE job_id = $1::uuid AND session ? 'cursor'", [parent]) == 1
        }
        victim.signal(SIGKILL)
        _ = try await victim.waitForExit()
        let recorded = try await count(db, "SELECT (session->>'listed')::bigint FROM ferry.jobs WHERE job_id = $1::uuid", [parent])
        #expect(recorded >= 1000 && recorded < 2500, "killed mid-listing (\(recorded) listed)")
        try await server.setFaults([:])

        let survivors = try (0..<2).map { try TestWorker.transfers(db, name: "survivor-\($0)", ["--concurrency", "8"]) }
        try await Self.waitForBatch(db, "crash")
        try await Self.stop(survivors)

        #expect(try await count(db, "SELECT attempt FROM ferry.jobs WHERE job_id = $1::uuid", [parent]) == 2)
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'crash' AND state <> 'succeeded'") == 0)
        #expect(try await Self.childCount(db, "crash") == 2500)
        #expect(try await Self.childCount(db, "crash", "source") == 2500)
        #expect(try await Self.childCount(db, "crash", "idempotency_key") == 2500)
        let stats = try await server.stats()
        #expect(stats["requests_per_route"]?["files/list_folder"]?.intValue == 1, "the second attempt continued from the cursor")
        try Self.expectMirror(server, account: "box", remote: "/Big", local: dir + "/out", count: 2500)
    }

    @Test("an expired listing cursor (reset) starts the listing over without duplicate children")
    func cursorReset() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("dbx_fetch_reset")
        try await DropboxAccounts.add("box", server: server, databaseURL: db.url)
        try await Self.seed(server, account: "box", folder: "/Reset", count: 300, size: 40)
        try await server.setFaults(["latency_milliseconds": .int(1500)])
        let dir = try temporaryFolder("reset")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let parent = try await Self.enqueueFetch(db, "dropbox:box:/Reset", to: dir + "/out/", ["--page-size", "50", "--batch", "reset"])

        let worker = try TestWorker.transfers(db, name: "reset", ["--concurrency", "8"])
        try await eventually(timeout: .seconds(300), interval: .milliseconds(100), "the first page to be fanned out") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE job_id = $1::uuid AND session ? 'cursor'", [parent]) == 1
        }
        _ = try await server.request("POST", "/__dev/reset-cursors", json: .object(["account": .string("box")]))
        // The next continue answers reset whatever the latency; the rest of the run can be quick.
        try await server.setFaults([:])
        try await Self.waitForBatch(db, "reset")
        try await Self.stop([worker])

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

    @Test("--recursive mirrors nested folders; without it only the top level is fetched")
    func recursiveTree() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("dbx_fetch_tree")
        try await DropboxAccounts.add("box", server: server, databaseURL: db.url)
        let layout = [("/Tree", 3), ("/Tree/Albums", 2), ("/Tree/Albums/Summer 2026", 4), ("/Tree/Empty Not", 1)]
        for (folder, count) in layout { try await Self.seed(server, account: "box", folder: folder, count: count, size: 300) }
        let dir = try temporaryFolder("tree")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Mixed case on purpose: local paths keep path_display, matched on path_lower.
        _ = try await Self.enqueueFetch(db, "dropbox:box:/tree", to: dir + "/all", ["--recursive", "--page-size", "3", "--batch", "deep"])
        _ = try await Self.enqueueFetch(db, "dropbox:box:/Tree/", to: dir + "/top/", ["--batch", "flat"])
        _ = try await Self.enqueueFetch(db, "dropbox:box:/", to: dir + "/root/", ["--recursive", "--batch", "whole"])

        let worker = try TestWorker.transfers(db, name: "tree", ["--concurrency", "4"])
        try await Self.waitForBatch(db, "deep")
        try await Self.waitForBatch(db, "flat")
        try await Self.waitForBatch(db, "whole")
        try await Self.stop([worker])

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

    @Test("--thumbnail w256h256 fetches JPEG thumbnails of images and skips other files")
    func thumbnails() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("dbx_fetch_thumbs")
        let refreshToken = try await DropboxAccounts.add("box", server: server, databaseURL: db.url)
        for (name, width, height) in [("a.png", 800, 600), ("b.PNG", 600, 1200), ("sub/c.png", 1000, 1000)] {
            try await Self.upload(server, refreshToken: refreshToken, path: "/Pics/" + name, data: Self.pngHeader(width: width, height: height))
        }
        try await Self.upload(server, refreshToken: refreshToken, path: "/Pics/notes.txt", data: Data("not an image".utf8))
        try await Self.seed(server, account: "box", folder: "/Pics", count: 2, size: 50)
        let dir = try temporaryFolder("thumbs")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let parent = try await Self.enqueueFetch(
            db, "dropbox:box:/Pics", to: dir + "/out/", ["--thumbnail", "w256h256", "--recursive", "--batch", "thumbs"])

        let worker = try TestWorker.transfers(db, name: "thumbs", ["--concurrency", "4"])
        try await Self.waitForBatch(db, "thumbs")
        try await Self.stop([worker])

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

    @Test("kill -9 during a throttled download: the next attempt resumes with Range at the recorded offset")
    func resumeDownload() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("dbx_fetch_resume")
        try await DropboxAccounts.add("box", server: server, databaseURL: db.url)
        let size = 40 * 1024 * 1024
        try await Self.seed(server, account: "box", folder: "/Video", count: 1, size: size)
        // Minutes for the whole file: a busy test task still kills it midway. The throttle is lifted for the retry.
        try await server.setFaults(["download_bytes_per_second": .int(256 * 1024)])
        let dir = try temporaryFolder("resume")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let job = try await Self.enqueueFetch(db, "dropbox:box:/Video/\(Self.seededName(0))", to: dir + "/out/", [])

        let victim = try TestWorker.transfers(db, name: "victim")
        try await eventually(timeout: .seconds(300), interval: .milliseconds(100), "a checkpoint to be recorded") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE (session->>'offset')::bigint > 0") == 1
        }
        victim.signal(SIGKILL)
        _ = try await victim.waitForExit()
        let offset = Int64(try await count(db, "SELECT (session->>'offset')::bigint FROM ferry.jobs"))
        #expect(offset > 0 && offset < Int64(size))
        // What the first attempt made the server send, once the server has noticed the closed connection.
        var sentBefore: Int64 = -1
        try await eventually(timeout: .seconds(300), interval: .seconds(1), "the server to stop sending") {
            let sent = try await server.stats()["bytes_sent"]?.intValue ?? 0
            defer { sentBefore = sent }
            return sent == sentBefore
        }
        try await server.setFaults([:])

        let survivor = try TestWorker.transfers(db, name: "survivor")
        try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "the fetch to finish") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state IN ('succeeded', 'failed')") == 1
        }
        try await Self.stop([survivor])

        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == 1)
        #expect(try await count(db, "SELECT attempt FROM ferry.jobs") == 2)
        let sentAfter = try await server.stats()["bytes_sent"]?.intValue ?? 0
        #expect(sentAfter - sentBefore == Int64(size) - offset, "the second attempt asked for bytes \(offset)– only")
        #expect(survivor.log.contains("resuming download"))
        let name = Self.seededName(0)
        #expect(
            FileManager.default.contents(atPath: dir + "/out/" + name)
                == FileManager.default.contents(atPath: server.storedFile(account: "box", path: "/Video/" + name)))
        #expect(Self.localFiles(dir + "/out") == [name], "no temporary file left")
        let result = try await Self.result(db, job)
        #expect(result["bytes"]?.intValue == Int64(size), "\(result)")
        #expect(result["content_hash"]?.stringValue?.count == 64, "\(result)")
    }

    @Test("cancelling a throttled download removes its .part file")
    func cancelledDownloadLeavesNothing() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("dbx_fetch_cancel")
        try await DropboxAccounts.add("box", server: server, databaseURL: db.url)
        try await Self.seed(server, account: "box", folder: "/Video", count: 1, size: 24 * 1024 * 1024)
        try await server.setFaults(["download_bytes_per_second": .int(256 * 1024)])  // minutes: a busy test task still cancels midway
        let dir = try temporaryFolder("cancel")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let job = try await Self.enqueueFetch(db, "dropbox:box:/Video/\(Self.seededName(0))", to: dir + "/out/", [])

        let worker = try TestWorker.transfers(db, name: "cancel")
        try await eventually(timeout: .seconds(300), interval: .milliseconds(100), "a checkpoint to be recorded") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE (session->>'offset')::bigint > 0") == 1
        }
        #expect(Self.localFiles(dir + "/out").count == 1 && Self.localFiles(dir + "/out")[0].hasSuffix(".part"))
        let cancel = try await FerryProcess.run(["cancel", job], databaseURL: db.url)
        #expect(cancel.status == 0, "\(cancel.stderr)")
        try await eventually(timeout: .seconds(300), interval: .milliseconds(100), "the job to be cancelled") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'cancelled'") == 1
        }
        try await Self.stop([worker])
        #expect(Self.localFiles(dir + "/out") == [], "no .part file left")
    }

    @Test("a file changed between listing and download: the new version is fetched and the result says so")
    func changedSinceListing() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("dbx_fetch_changed")
        let refreshToken = try await DropboxAccounts.add("box", server: server, databaseURL: db.url)
        try await Self.seed(server, account: "box", folder: "/Docs", count: 2, size: 500)
        // Slow enough that the worker can be stopped after the listing, before any download completes.
        try await server.setFaults(["latency_milliseconds": .int(3000)])
        let dir = try temporaryFolder("changed")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let parent = try await Self.enqueueFetch(db, "dropbox:box:/Docs", to: dir + "/out/", ["--batch", "changed"])
        let lister = try TestWorker.transfers(db, name: "lister", ["--concurrency", "1"])
        try await eventually(timeout: .seconds(300), interval: .milliseconds(100), "the listing to be fanned out") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE job_id = $1::uuid AND session ? 'cursor'", [parent]) == 1
        }
        lister.signal(SIGKILL)
        _ = try await lister.waitForExit()
        try await server.setFaults([:])
        let changed = Data(String(repeating: "new content\n", count: 40).utf8)
        try await Self.upload(server, refreshToken: refreshToken, path: "/Docs/" + Self.seededName(1), data: changed)

        let worker = try TestWorker.transfers(db, name: "fetcher", ["--concurrency", "2"])
        try await Self.waitForBatch(db, "changed")
        try await Self.stop([worker])

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

    @Test("--sha256 on a single-file fetch: the right checksum passes, a wrong one fails the job and leaves no file")
    func sha256Check() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("dbx_fetch_sha")
        try await DropboxAccounts.add("box", server: server, databaseURL: db.url)
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
        let good = try await Self.enqueueFetch(db, "dropbox:box:/One/\(Self.seededName(0))", to: dir + "/good/x.bin", ["--sha256", sha])
        let bad = try await Self.enqueueFetch(
            db, "dropbox:box:/One/\(Self.seededName(0))", to: dir + "/bad/", ["--sha256", wrong, "--max-attempts", "1"])

        let worker = try TestWorker.transfers(db, name: "sha")
        try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "both fetches to finish") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state IN ('succeeded', 'failed')") == 2
        }
        try await Self.stop([worker])

        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE job_id = $1::uuid AND state = 'succeeded'", [good]) == 1)
        #expect(FileManager.default.contents(atPath: dir + "/good/x.bin") == Data(expected))
        let failure = try await db.query("SELECT state, last_error FROM ferry.jobs WHERE job_id = $1::uuid", [bad]).rows[0]
        #expect(try failure.decode(String.self, at: 0) == "failed")
        #expect(try failure.decode(String?.self, at: 1)?.contains("SHA-256") == true)
        #expect(Self.localFiles(dir + "/bad").isEmpty, "nothing written, not even a temporary file")
    }

    @Test("a fetched file carries the source's client_modified as its modification time, for a file and a folder's files")
    func keepsModificationTime() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("dbx_fetch_mtime")
        let refreshToken = try await DropboxAccounts.add("box", server: server, databaseURL: db.url)
        try await Self.upload(
            server, refreshToken: refreshToken, path: "/Old/a.jpg", data: Data(repeating: 7, count: 5000),
            clientModified: "2019-06-01T12:34:56Z")
        try await Self.upload(
            server, refreshToken: refreshToken, path: "/Old/b.jpg", data: Data(repeating: 8, count: 300),
            clientModified: "2003-02-01T00:00:01Z")
        let dir = try temporaryFolder("mtime")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try await Self.enqueueFetch(db, "dropbox:box:/Old/a.jpg", to: dir + "/one/", ["--batch", "mtime"])
        _ = try await Self.enqueueFetch(db, "dropbox:box:/Old", to: dir + "/all/", ["--batch", "mtime"])
        let worker = try TestWorker.transfers(db, name: "mtime")
        try await Self.waitForBatch(db, "mtime")
        try await Self.stop([worker])
        func modified(_ path: String) throws -> TimeInterval? {
            (try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date)?.timeIntervalSince1970
        }
        #expect(try modified(dir + "/one/a.jpg") == 1_559_392_496)
        #expect(try modified(dir + "/all/a.jpg") == 1_559_392_496)
        #expect(try modified(dir + "/all/b.jpg") == 1_044_057_601)
    }

    @Test("a missing Dropbox path fails the fetch for good on its first attempt")
    func missingPath() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("dbx_fetch_missing")
        try await DropboxAccounts.add("box", server: server, databaseURL: db.url)
        let dir = try temporaryFolder("missing")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let job = try await Self.enqueueFetch(db, "dropbox:box:/Nope", to: dir + "/out/", [])
        let worker = try TestWorker.transfers(db, name: "missing")
        try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "the fetch to fail") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'failed'") == 1
        }
        try await Self.stop([worker])
        let row = try await db.query("SELECT attempt, last_error FROM ferry.jobs WHERE job_id = $1::uuid", [job]).rows[0]
        #expect(try row.decode(Int.self, at: 0) == 1, "not retried")
        #expect(try row.decode(String?.self, at: 1)?.contains("not_found") == true)
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
