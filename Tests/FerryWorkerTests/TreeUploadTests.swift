import FerryClient
import FerryCore
import FerryProviders
import FerryTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Tree uploads walked by the worker (`--option tree=true`, and schedules of `upload DIR --recursive`): the folder's
/// files arrive with their paths, and a tree walked again enqueues only what is new or changed. Workers (with their
/// scheduler) in the test's process; what `ferry schedule add` and `show` print and refuse stays a process test.
@Suite("tree uploads walked by the worker", .tags(.postgres), .serialized)
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
        try await InProcessFleet.run("tree_walk") { fleet in try await Self.walkedByTheWorker(fleet) }
    }

    static func walkedByTheWorker(_ fleet: InProcessFleet) async throws {
        let db = fleet.db
        let source = try temporaryFolder("tree-src")
        let target = try temporaryFolder("tree-dst")
        defer { try? FileManager.default.removeItem(atPath: source); try? FileManager.default.removeItem(atPath: target) }
        try Self.write(Self.tree, under: source)
        try await fleet.enqueue(.upload, source, to: target + "/", batch: "walk", options: ["tree": .commandLine("true")])
        let worker = try fleet.worker("walker")
        try await fleet.waitForBatch("walk")
        try await fleet.stop([worker])
        for (relative, content) in Self.tree {
            #expect((try? String(contentsOfFile: target + "/" + relative, encoding: .utf8)) == content, "\(relative)")
        }
        let result = try await db.query(
            "SELECT result::text FROM ferry.jobs WHERE spec->>'tree' = 'true'").rows[0].decode(String.self, at: 0)
        let facts = try JSONValue.parse(result)
        #expect(facts["files"] == .int(4) && facts["enqueued"] == .int(4), "\(result)")
        // A file is not a folder, and a tree goes into a folder: refused at enqueue, nothing written.
        let jobs = try await count(db, "SELECT count(*) FROM ferry.jobs")
        do {
            try await fleet.enqueue(.upload, source + "/a.jpg", to: target + "/", options: ["tree": .commandLine("true")])
            Issue.record("a tree upload of a file was enqueued")
        } catch {
            #expect("\(error)".contains("is not a folder"), "\(error)")
        }
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs") == jobs)
    }

    @Test("a schedule of upload DIR --recursive: the first tick sends the tree, a new file goes up at a later tick, unchanged ticks enqueue no file")
    func scheduledTree() async throws {
        try await InProcessFleet.run("tree_schedule") { fleet in try await Self.scheduledTree(fleet) }
    }

    /// `ferry schedule add NAME --every 1s -- upload SOURCE --recursive --to TARGET/ [filters]`'s template: the
    /// folder walked by a worker at each tick, what is there already skipped (the default for a tree).
    static func template(_ source: String, to target: String, filter: FileFilter? = nil) -> JobRequest {
        var options: [String: OptionValue] = [TreeUpload.option.name: .json(.bool(true)), "if_changed": .json(.bool(true))]
        if let filter { options[ListingFilter.option.name] = .commandLine(filter.json.jsonText) }
        return JobRequest(kind: .upload, source: source, to: target, options: options)
    }

    static func scheduledTree(_ fleet: InProcessFleet) async throws {
        let db = fleet.db
        let source = try temporaryFolder("tree-sched-src")
        let target = try temporaryFolder("tree-sched-dst")
        defer { try? FileManager.default.removeItem(atPath: source); try? FileManager.default.removeItem(atPath: target) }
        try Self.write(Self.tree, under: source)
        try await fleet.addSchedule("backup", everySeconds: 1, template: Self.template(source, to: target + "/"))
        let worker = try fleet.worker("scheduler", scheduleInterval: .milliseconds(200))
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
        try await fleet.pauseSchedule("backup")
        try await fleet.stop([worker])

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
        #expect(try await fleet.projectionClean(), "ferry projection verify would pass")
    }

    @Test("a scheduled tree keeps its filters: excludes, a --filter-from file's rules as they were at schedule add, sizes and a --max-age counted from each tick")
    func scheduledTreeWithFilters() async throws {
        try await InProcessFleet.run("tree_schedule_filters") { fleet in try await Self.scheduledTreeWithFilters(fleet) }
    }

    /// The filter `--exclude '*.tmp' --exclude cache/ --filter-from RULES --max-size 1k --max-age 7d` gives a schedule's
    /// template: the rules file read now, the age a span counted back from each tick (as `ferry schedule add` builds it).
    static func scheduleFilter(rules: String) throws -> FileFilter {
        var filter = FileFilter()
        for text in ["*.tmp", "cache/"] {
            filter.rules.append(.init(include: false, pattern: try GlobPattern(text), origin: "--exclude '\(text)'"))
        }
        filter.rules += try FileFilter.rules(fromFilterFile: try String(contentsOfFile: rules, encoding: .utf8), name: rules)
        try filter.checkBounds()
        filter.maxSize = FileFilter.parseSize("1k")
        filter.maxAge = FileFilter.parseDuration("7d")
        return filter
    }

    static func filterFixture() throws -> (source: String, target: String, rules: String) {
        let source = try temporaryFolder("tree-filter-src")
        let target = try temporaryFolder("tree-filter-dst")
        let rules = try temporaryFolder("tree-filter-rules") + "/rules.txt"
        try Self.write(
            ["a.jpg": "keep", "b.tmp": "scratch", "cache/c.jpg": "cached", "raw/d.cr2": "raw", "big.jpg": String(repeating: "x", count: 4096),
             "old.jpg": "old"],
            under: source)
        // Ten days old: older than --max-age 7d at every tick.
        let old = Date().addingTimeInterval(-10 * 86_400).timeIntervalSince1970
        var times = [timespec(tv_sec: Int(old), tv_nsec: 0), timespec(tv_sec: Int(old), tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, source + "/old.jpg", &times, 0) == 0)
        try "# raw files stay home\n- raw/**\n".write(toFile: rules, atomically: true, encoding: .utf8)
        return (source, target, rules)
    }

    static func scheduledTreeWithFilters(_ fleet: InProcessFleet) async throws {
        let db = fleet.db
        let (source, target, rules) = try Self.filterFixture()
        defer { for path in [source, target] { try? FileManager.default.removeItem(atPath: path) } }
        try await fleet.addSchedule(
            "filtered", everySeconds: 1, template: Self.template(source, to: target + "/", filter: try Self.scheduleFilter(rules: rules)))
        // The rules were read at schedule add: a later edit of the file changes nothing.
        try "+ **\n".write(toFile: rules, atomically: true, encoding: .utf8)

        let worker = try fleet.worker("filtered", scheduleInterval: .milliseconds(200))
        try Self.write(["later.jpg": "new", "later.tmp": "scratch"], under: source)
        try await eventually(timeout: .seconds(300), "a later tick's new file") { FileManager.default.fileExists(atPath: target + "/later.jpg") }
        try await eventually(timeout: .seconds(300), "that tick's jobs to finish") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state NOT IN ('succeeded')") == 0
                || FileManager.default.fileExists(atPath: target + "/later.jpg")
        }
        try await fleet.pauseSchedule("filtered")
        try await fleet.stop([worker])
        let arrived = Set((FileManager.default.enumerator(atPath: target)?.allObjects as? [String] ?? [])
            .filter { !$0.hasSuffix("cache") && !$0.hasSuffix("raw") })
        #expect(arrived == ["a.jpg", "later.jpg"], "\(arrived.sorted())")
        let filtered = try await count(
            db, "SELECT count(*) FROM ferry.jobs WHERE spec->>'tree' = 'true' AND (result->>'filtered')::int >= 5")
        #expect(filtered >= 1, "the walk says how many files the filter left out")
    }

    @Test(
        "schedule add keeps a tree's filters (a --filter-from file's rules as they were) and schedule show prints them; a pattern over the limit or a bad age is refused, nothing stored",
        .tags(.process))
    func scheduleFiltersOnTheCommandLine() async throws {
        let db = try await TestDatabase.make("tree_schedule_filters_cli")
        let (source, target, rules) = try Self.filterFixture()
        defer { for path in [source, target] { try? FileManager.default.removeItem(atPath: path) } }
        let added = try await FerryProcess.run(
            ["schedule", "add", "filtered", "--every", "1s", "--", "upload", source, "--recursive", "--to", target + "/",
             "--exclude", "*.tmp", "--exclude", "cache/", "--filter-from", rules, "--max-size", "1k", "--max-age", "7d"],
            databaseURL: db.url, environment: ["FERRY_SCHEDULE_MIN_INTERVAL": "1"])
        try #require(added.status == 0, "\(added.stderr)")
        // The rules were read at schedule add: a later edit of the file changes nothing.
        try "+ **\n".write(toFile: rules, atomically: true, encoding: .utf8)
        let shown = try await FerryProcess.run(["schedule", "show", "filtered"], databaseURL: db.url)
        #expect(shown.stdout.contains("--filter rules [- *.tmp, - cache/, - raw/**] --max-size 1.0 KiB --max-age 1w"), "\(shown.stdout)")
        // The template the in-process case builds (the rules file as it was) is the one the command stored.
        let stored = try await db.query("SELECT template::text FROM ferry.schedules WHERE name = 'filtered'").rows[0].decode(String.self, at: 0)
        try "# raw files stay home\n- raw/**\n".write(toFile: rules, atomically: true, encoding: .utf8)
        let built = Self.template(source, to: target + "/", filter: try Self.scheduleFilter(rules: rules)).template
        #expect(try JSONValue.parse(stored) == built, "\(stored)")

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
