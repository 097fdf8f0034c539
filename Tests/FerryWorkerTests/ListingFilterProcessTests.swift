import FerryCore
import FerryTestSupport
import Foundation
import Postgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What only `ferry` processes show of listing filters: the command's refusal of filters on a single file (exit 65),
/// and a worker process that stays alive and small on a producer's exploding brace filter. The filters' effect on
/// listings runs in process (`ListingFilterTests`).
@Suite("filters on fetched folders, across processes", .tags(.postgres, .process), .serialized)
struct ListingFilterProcessTests {
    @Test("one file with filters is refused: a URL has nothing to choose from (exit 65)")
    func singleFileRefused() async throws {
        let db = try await TestDatabase.make("listing_filter_one")
        let dir = try temporaryFolder("listing-filter-one")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // A URL is one file: filters have nothing to choose from (a Dropbox path may be a folder: it lists).
        let one = try await FerryProcess.run(
            ["enqueue", "fetch", "https://example.com/a.jpg", "--to", dir + "/", "--include", "*.jpg"], databaseURL: db.url)
        #expect(one.status == 65 && one.stderr.contains("nothing to choose from"), "\(one.stderr)")
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs") == 0, "nothing enqueued")
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
        #expect(ListingFilterTests.files(dir + "/sql") == ["a.jpg"])
        #expect(ListingFilterTests.files(dir + "/scheduled") == ["a.jpg"])
        #expect(peak.map { $0 < 100 * 1024 } == true, "peak resident memory \(peak ?? -1) KiB")
    }
}
