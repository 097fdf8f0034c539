import FerryCore
import FerryS3
import FerryTestSupport
import Foundation
import NIOCore
import Postgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Filters on folder and prefix fetches: the listing takes only what `--include`, `--exclude` and the size flags
/// let through. Real workers against the dev server and moto.
@Suite("filters on fetched folders and prefixes", .tags(.postgres, .process), .serialized)
struct ListingFilterTests {
    static func files(_ dir: String) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: dir)
        var out = [String]()
        while let item = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: dir + "/" + item, isDirectory: &isDirectory), !isDirectory.boolValue { out.append(item) }
        }
        return out.sorted()
    }

    @Test("a Dropbox folder with --include '*.jpg' --max-size 5k fetches only small photos, below folders too; one file with filters is refused")
    func dropboxFolder() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("listing_filter")
        let token = try await DropboxAccounts.add("box", server: server, databaseURL: db.url)
        for (path, size) in [("/F/a.jpg", 1000), ("/F/b.txt", 1000), ("/F/sub/c.jpg", 2000), ("/F/sub/big.jpg", 9000)] {
            try await DropboxFetchTests.upload(server, refreshToken: token, path: path, data: Data(repeating: 1, count: size))
        }
        let dir = try temporaryFolder("listing-filter")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let enqueued = try await FerryProcess.run(
            ["enqueue", "fetch", "dropbox:box:/F", "--recursive", "--to", dir + "/", "--batch", "f", "--include", "*.jpg", "--max-size", "5k"],
            databaseURL: db.url)
        #expect(enqueued.status == 0, "\(enqueued.stderr)")
        let worker = try TestWorker.transfers(db, name: "filter")
        try await eventually(timeout: .seconds(300), "the folder") { try await WorkerFixtures.batchDone(db, "f") }
        worker.signal(SIGTERM)
        _ = try await worker.waitForExit()
        #expect(Self.files(dir) == ["a.jpg", "sub/c.jpg"])
        // A URL is one file: filters have nothing to choose from (a Dropbox path may be a folder: it lists).
        let one = try await FerryProcess.run(
            ["enqueue", "fetch", "https://example.com/a.jpg", "--to", dir + "/", "--include", "*.jpg"], databaseURL: db.url)
        #expect(one.status == 65 && one.stderr.contains("nothing to choose from"), "\(one.stderr)")
    }

    @Test("an S3 prefix with --exclude '*.tmp' --min-size 100b fetches the rest")
    func s3Prefix() async throws {
        let setup = try await S3TransferTests.setUp("listing_filter_s3")
        defer { try? FileManager.default.removeItem(atPath: setup.dir) }
        for (key, size) in [("p/a.jpg", 500), ("p/b.tmp", 500), ("p/tiny.jpg", 10), ("p/d/e.jpg", 300)] {
            _ = try await setup.client.putObject(
                bucket: setup.bucket, key: key, body: .bytes(ByteBuffer(bytes: [UInt8](repeating: 2, count: size))))
        }
        let target = setup.dir + "/out"
        let enqueued = try await FerryProcess.run(
            ["enqueue", "fetch", "s3:s3:\(setup.bucket)/p/", "--recursive", "--to", target + "/", "--batch", "p", "--exclude", "*.tmp",
             "--min-size", "100b"],
            databaseURL: setup.db.url)
        #expect(enqueued.status == 0, "\(enqueued.stderr)")
        let worker = try TestWorker.transfers(setup.db, name: "filter-s3")
        try await eventually(timeout: .seconds(300), "the prefix") { try await WorkerFixtures.batchDone(setup.db, "p") }
        worker.signal(SIGTERM)
        _ = try await worker.waitForExit()
        let states = try await setup.db.query("SELECT source, state, coalesce(last_error, '') FROM ferry.jobs").rows.map {
            "\(try $0.decode(String.self, at: 0)) \(try $0.decode(String.self, at: 1)) \(try $0.decode(String.self, at: 2))"
        }
        #expect(Self.files(target) == ["a.jpg", "d/e.jpg"], "\(states)")
    }

    /// Peak resident memory of a process in KiB (VmHWM), from /proc.
    static func peakKiB(_ pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return nil }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    }

    /// Issue 30: `{a,b}` 26 times in a producer's filter expanded to 2^26 patterns; each worker that claimed the job
    /// grew until it died, and so did the next. Written from SQL, as a producer login can, and through a schedule.
    @Test("the 26-group brace filter from ferry.enqueue and from a schedule event: the worker matches it, stays alive and small")
    func braceFilterFromSQL() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("listing_filter_braces")
        let token = try await DropboxAccounts.add("box", server: server, databaseURL: db.url)
        let evil = String(repeating: "ab", count: 13) + ".jpg"
        for path in ["/G/a.jpg", "/G/" + evil, "/G/c.txt"] {
            try await DropboxFetchTests.upload(server, refreshToken: token, path: path, data: Data(repeating: 3, count: 500))
        }
        let dir = try temporaryFolder("listing-braces")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let rules = JSONValue.object(["rules": .array([
            .array([.string("-"), .string(String(repeating: "{a,b}", count: 26) + ".jpg"), .string("producer")]),
            .array([.string("+"), .string("*.jpg"), .string("photos")]),
            .array([.string("-"), .string("**"), .string("the rest")]),
        ])]).jsonText
        let options = JSONValue.object(["batch": .string("braces"), "options": .object(["filter": .string(rules)])]).jsonText
        _ = try await db.query("SELECT ferry.enqueue('fetch', 'dropbox:box:/G', $1, $2::jsonb)", [dir + "/sql/", options])
        // The same filter in a schedule's template, appended as a producer would (every 60 s: the minimum).
        let template = JSONValue.object([
            "kind": .string("fetch"), "source": .string("dropbox:box:/G"), "to": .string(dir + "/scheduled/"),
            "batch": .string("scheduled"), "options": .object(["filter": .string(rules)]),
        ])
        let schedule = JSONValue.object([
            "every_seconds": .int(60), "timezone": .string("UTC"), "next_tick": .string("2000-01-01T00:00:00Z"), "template": template,
        ]).jsonText
        _ = try await db.query(
            "INSERT INTO ferry.schedule_events (schedule, type, data) VALUES ('braces', 'added', $1::jsonb)", [PostgresJSON(text: schedule)])
        let worker = try TestWorker.transfers(db, name: "braces", ["--schedule-interval", "0.2"])
        try await eventually(timeout: .seconds(300), "both folders") {
            let sql = try await WorkerFixtures.batchDone(db, "braces")
            let scheduled = try await WorkerFixtures.batchDone(db, "scheduled")
            return sql && scheduled
        }
        let peak = Self.peakKiB(worker.pid)
        #expect(worker.isRunning)
        worker.signal(SIGTERM)
        _ = try await worker.waitForExit()
        #expect(Self.files(dir + "/sql") == ["a.jpg"])
        #expect(Self.files(dir + "/scheduled") == ["a.jpg"])
        #expect(peak.map { $0 < 100 * 1024 } == true, "peak resident memory \(peak ?? -1) KiB")
    }
}
