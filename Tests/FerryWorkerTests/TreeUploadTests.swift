import FerryCore
import FerryTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Tree uploads walked by the worker (`--option tree=true`, and schedules of `upload DIR --recursive`): the folder's
/// files arrive with their paths, and a tree walked again enqueues only what is new or changed.
@Suite("tree uploads walked by the worker", .tags(.postgres, .process), .serialized)
struct TreeUploadTests {
    static func write(_ files: [String: String], under root: String) throws {
        for (relative, content) in files {
            let path = root + "/" + relative
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try content.write(toFile: path, atomically: false, encoding: .utf8)
        }
    }

    static let tree = ["a.jpg": "top", "2025/a.jpg": "twenty-five", "2025/jan/a.jpg": "january", "2025/jan/notes.txt": "n"]

    @Test("--option tree=true: the worker walks the folder and fans out one upload per file, keeping the paths")
    func walkedByTheWorker() async throws {
        let db = try await TestDatabase.make("tree_walk")
        let source = try temporaryFolder("tree-src")
        let target = try temporaryFolder("tree-dst")
        defer { try? FileManager.default.removeItem(atPath: source); try? FileManager.default.removeItem(atPath: target) }
        try Self.write(Self.tree, under: source)
        let enqueued = try await FerryProcess.run(
            ["enqueue", "upload", source, "--to", target + "/", "--option", "tree=true", "--batch", "walk"], databaseURL: db.url)
        #expect(enqueued.status == 0, "\(enqueued.stderr)")
        let worker = try TestWorker.transfers(db, name: "walker")
        let waited = try await FerryProcess.run(["wait", "--batch", "walk", "--timeout", "120"], databaseURL: db.url)
        #expect(waited.status == 0, "\(waited.stdout)\(waited.stderr)")
        worker.signal(SIGTERM)
        _ = try await worker.waitForExit()
        for (relative, content) in Self.tree {
            #expect((try? String(contentsOfFile: target + "/" + relative, encoding: .utf8)) == content, "\(relative)")
        }
        let result = try await db.query(
            "SELECT result::text FROM ferry.jobs WHERE spec->>'tree' = 'true'").rows[0].decode(String.self, at: 0)
        let facts = try JSONValue.parse(result)
        #expect(facts["files"] == .int(4) && facts["enqueued"] == .int(4), "\(result)")
        // A file is not a folder, and a tree goes into a folder: refused at enqueue, nothing written.
        let file = try await FerryProcess.run(
            ["enqueue", "upload", source + "/a.jpg", "--to", target + "/", "--option", "tree=true"], databaseURL: db.url)
        #expect(file.status == 65 && file.stderr.contains("is not a folder"), "\(file.stderr)")
    }

    @Test("a schedule of upload DIR --recursive: the first tick sends the tree, a new file goes up at a later tick, unchanged ticks enqueue no file")
    func scheduledTree() async throws {
        let db = try await TestDatabase.make("tree_schedule")
        let source = try temporaryFolder("tree-sched-src")
        let target = try temporaryFolder("tree-sched-dst")
        defer { try? FileManager.default.removeItem(atPath: source); try? FileManager.default.removeItem(atPath: target) }
        try Self.write(Self.tree, under: source)
        let added = try await FerryProcess.run(
            ["schedule", "add", "backup", "--every", "1s", "--", "upload", source, "--recursive", "--to", target + "/"], databaseURL: db.url,
            environment: ["FERRY_SCHEDULE_MIN_INTERVAL": "1"])
        try #require(added.status == 0, "\(added.stderr)")
        let worker = try TestWorker.transfers(db, name: "scheduler", ["--schedule-interval", "0.2"])
        try await eventually(timeout: .seconds(300), "the first run's files") {
            Self.tree.keys.allSatisfy { FileManager.default.fileExists(atPath: target + "/" + $0) }
        }
        try Self.write(["2026/new.jpg": "new"], under: source)
        try await eventually(timeout: .seconds(300), "the new file at a later tick") {
            (try? String(contentsOfFile: target + "/2026/new.jpg", encoding: .utf8)) == "new"
        }
        // A few more ticks with nothing new.
        let walked = try await count(db, "SELECT count(*) FROM ferry.jobs WHERE spec->>'tree' = 'true'")
        try await eventually(timeout: .seconds(300), "three more ticks") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE spec->>'tree' = 'true' AND state = 'succeeded'") >= walked + 3
        }
        let paused = try await FerryProcess.run(["schedule", "pause", "backup"], databaseURL: db.url)
        #expect(paused.status == 0, "\(paused.stderr)")
        worker.signal(SIGTERM)
        _ = try await worker.waitForExit()

        let files = try await count(db, "SELECT count(*) FROM ferry.jobs WHERE idempotency_key LIKE 'tree:%'")
        #expect(files == 5, "each file's version enqueued once across every tick")
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE idempotency_key LIKE 'tree:%' AND state <> 'succeeded'") == 0)
        // A tick that found nothing new costs its own job's few events, not three per file.
        let idle = try await db.query(
            """
            SELECT count(DISTINCT j.job_id), count(e.*)
              FROM ferry.jobs j JOIN ferry.events e ON e.job_id = j.job_id
             WHERE j.spec->>'tree' = 'true' AND j.state = 'succeeded' AND (j.result->>'enqueued')::int = 0
            """).rows[0]
        let (ticks, events) = (try idle.decode(Int.self, at: 0), try idle.decode(Int.self, at: 1))
        #expect(ticks >= 2 && events <= ticks * 4, "\(events) events over \(ticks) idle ticks")
        let verify = try await FerryProcess.run(["projection", "verify"], databaseURL: db.url)
        #expect(verify.status == 0, "\(verify.stdout)")
    }

    @Test("a scheduled tree keeps its filters: excludes, a --filter-from file's rules as they were at schedule add, sizes and a --max-age counted from each tick; schedule show prints them")
    func scheduledTreeWithFilters() async throws {
        let db = try await TestDatabase.make("tree_schedule_filters")
        let source = try temporaryFolder("tree-filter-src")
        let target = try temporaryFolder("tree-filter-dst")
        let rules = try temporaryFolder("tree-filter-rules") + "/rules.txt"
        defer { for path in [source, target] { try? FileManager.default.removeItem(atPath: path) } }
        try Self.write(
            ["a.jpg": "keep", "b.tmp": "scratch", "cache/c.jpg": "cached", "raw/d.cr2": "raw", "big.jpg": String(repeating: "x", count: 4096),
             "old.jpg": "old"],
            under: source)
        // Ten days old: older than --max-age 7d at every tick.
        let old = Date().addingTimeInterval(-10 * 86_400).timeIntervalSince1970
        var times = [timespec(tv_sec: Int(old), tv_nsec: 0), timespec(tv_sec: Int(old), tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, source + "/old.jpg", &times, 0) == 0)
        try "# raw files stay home\n- raw/**\n".write(toFile: rules, atomically: true, encoding: .utf8)
        let added = try await FerryProcess.run(
            ["schedule", "add", "filtered", "--every", "1s", "--", "upload", source, "--recursive", "--to", target + "/",
             "--exclude", "*.tmp", "--exclude", "cache/", "--filter-from", rules, "--max-size", "1k", "--max-age", "7d"],
            databaseURL: db.url, environment: ["FERRY_SCHEDULE_MIN_INTERVAL": "1"])
        try #require(added.status == 0, "\(added.stderr)")
        // The rules were read at schedule add: a later edit of the file changes nothing.
        try "+ **\n".write(toFile: rules, atomically: true, encoding: .utf8)
        let shown = try await FerryProcess.run(["schedule", "show", "filtered"], databaseURL: db.url)
        #expect(shown.stdout.contains("--filter rules [- *.tmp, - cache/, - raw/**] --max-size 1.0 KiB --max-age 1w"), "\(shown.stdout)")

        let worker = try TestWorker.transfers(db, name: "filtered", ["--schedule-interval", "0.2"])
        try Self.write(["later.jpg": "new", "later.tmp": "scratch"], under: source)
        try await eventually(timeout: .seconds(300), "a later tick's new file") { FileManager.default.fileExists(atPath: target + "/later.jpg") }
        try await eventually(timeout: .seconds(300), "that tick's jobs to finish") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state NOT IN ('succeeded')") == 0
                || FileManager.default.fileExists(atPath: target + "/later.jpg")
        }
        _ = try await FerryProcess.run(["schedule", "pause", "filtered"], databaseURL: db.url)
        worker.signal(SIGTERM)
        _ = try await worker.waitForExit()
        let arrived = Set((FileManager.default.enumerator(atPath: target)?.allObjects as? [String] ?? [])
            .filter { !$0.hasSuffix("cache") && !$0.hasSuffix("raw") })
        #expect(arrived == ["a.jpg", "later.jpg"], "\(arrived.sorted())")
        let filtered = try await count(
            db, "SELECT count(*) FROM ferry.jobs WHERE spec->>'tree' = 'true' AND (result->>'filtered')::int >= 5")
        #expect(filtered >= 1, "the walk says how many files the filter left out")

        // Filters still refuse what enqueue refuses: a pattern over the limit, a bad age, and a single file.
        let long = try await FerryProcess.run(
            ["schedule", "add", "long", "--every", "1h", "--", "upload", source, "--recursive", "--to", target + "/",
             "--exclude", String(repeating: "a", count: 2000)], databaseURL: db.url)
        #expect(long.status == 64 && long.stderr.contains("1024"), "\(long.stderr)")
        let age = try await FerryProcess.run(
            ["schedule", "add", "age", "--every", "1h", "--", "upload", source, "--recursive", "--to", target + "/", "--max-age", "soon"],
            databaseURL: db.url)
        #expect(age.status == 64 && age.stderr.contains("--max-age"), "\(age.stderr)")
        let listed = try await FerryProcess.run(["schedule", "list", "--json"], databaseURL: db.url)
        #expect(!listed.stdout.contains("\"long\"") && !listed.stdout.contains("\"age\""), "nothing stored: \(listed.stdout)")
    }
}
