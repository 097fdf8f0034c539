import FerryClient
import FerryCore
import FerryProviders
import FerryTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `ferry enqueue sync SRC --to DEST/`: the copy of a folder, then the deletion of what the destination holds that
/// the source no longer has, only after every copy of the run succeeded, bounded by `--max-delete`, never after a
/// listing that failed, and resumable after a kill -9 with nothing deleted twice. Workers, producer and the dev
/// server's Dropbox in the test's process (`InProcessFleet`), real PostgreSQL; the kill -9 and what the command
/// prints and refuses run `ferry` processes.
@Suite("sync: copies, then guarded deletions", .tags(.postgres), .serialized)
struct SyncTests {
    static func write(_ files: [String: String], under root: String) throws {
        try TreeUploadTests.write(files, under: root)
    }

    /// Regular files below `root` with their content.
    static func tree(_ root: String) -> [String: String] {
        var found = [String: String]()
        for case let relative as String in FileManager.default.enumerator(atPath: root)?.allObjects ?? [] {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root + "/" + relative, isDirectory: &isFolder), !isFolder.boolValue else { continue }
            found[relative] = try? String(contentsOfFile: root + "/" + relative, encoding: .utf8)
        }
        return found
    }

    /// The filter `--exclude PATTERN…` gives.
    static func excluding(_ patterns: [String]) throws -> FileFilter {
        var filter = FileFilter()
        for text in patterns {
            filter.rules.append(.init(include: false, pattern: try GlobPattern(text), origin: "--exclude '\(text)'"))
        }
        return filter
    }

    /// `ferry enqueue sync SOURCE --to DEST/ [--exclude …] [--max-delete N]`'s job as the command builds it: a local
    /// folder's tree upload (a remote folder's copy), changed files replaced, then the deletions.
    static func request(
        _ source: String, to destination: String, batch: String?, exclude: [String] = [], maxDelete: Int64? = nil, maxAttempts: Int64? = nil
    ) throws -> JobRequest {
        var options: [String: OptionValue] = [
            "if_changed": .json(.bool(true)), TreeUpload.option.name: .json(.bool(true)), SyncMirror.option.name: .json(.int(maxDelete ?? -1)),
        ]
        if !exclude.isEmpty { options[ListingFilter.option.name] = .commandLine(try Self.excluding(exclude).json.jsonText) }
        return JobRequest(kind: .upload, source: source, to: destination, batch: batch, maxAttempts: maxAttempts, options: options)
    }

    /// Enqueues a sync as `batch`, runs a worker (`--no-deletes` unless `allowsDeletes`) until the batch is done, and
    /// returns what `ferry wait` would exit with: 0 when every job of the batch succeeded, 1 otherwise.
    static func sync(
        _ fleet: InProcessFleet, _ source: String, to destination: String, batch: String, exclude: [String] = [], maxDelete: Int64? = nil,
        maxAttempts: Int64? = nil, allowsDeletes: Bool = true
    ) async throws -> Int32 {
        _ = try await fleet.client.enqueue([
            try Self.request(source, to: destination, batch: batch, exclude: exclude, maxDelete: maxDelete, maxAttempts: maxAttempts)
        ])
        let worker = try fleet.transferWorker(batch, chunkMiB: 8, allowsDeletes: allowsDeletes)
        do {
            try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "batch \(batch)") {
                try await WorkerFixtures.batchDone(fleet.db, batch)
            }
        } catch {
            try? await fleet.stop([worker])
            throw error
        }
        try await fleet.stop([worker])
        let unsuccessful = try await count(fleet.db, "SELECT count(*) FROM ferry.jobs WHERE batch = $1 AND state <> 'succeeded'", [batch])
        return unsuccessful == 0 ? 0 : 1
    }

    /// The sync job's state, error and result.
    static func syncJob(_ db: TestDatabase, _ batch: String) async throws -> (state: String, error: String, result: JSONValue) {
        let row = try await db.query(
            "SELECT state, coalesce(last_error, ''), coalesce(result::text, 'null') FROM ferry.jobs WHERE batch = $1 AND spec ? 'sync'",
            [batch]).rows[0]
        return (try row.decode(String.self, at: 0), try row.decode(String.self, at: 1), try JSONValue.parse(try row.decode(String.self, at: 2)))
    }

    @Test("local folders, three runs: extras deleted, filtered files kept, changed files replaced, --max-delete stops a run before any deletion")
    func localThreeRuns() async throws {
        try await InProcessFleet.run("sync_local") { fleet in try await Self.localThreeRuns(fleet) }
    }

    static func localThreeRuns(_ fleet: InProcessFleet) async throws {
        let db = fleet.db
        let root = try temporaryFolder("sync-local")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let (source, target) = (root + "/src", root + "/dst")
        try Self.write(["a.jpg": "aaaa", "b.jpg": "bbbb", "sub/c.jpg": "cccc", "skip.tmp": "tmp"], under: source)
        try Self.write(["extra.jpg": "old", "keep.tmp": "mine", "sub/old.jpg": "old"], under: target)

        #expect(try await Self.sync(fleet, source, to: target + "/", batch: "run1", exclude: ["*.tmp"]) == 0)
        // keep.tmp is outside the filter: a sync neither copies nor deletes what its filter leaves out.
        #expect(Self.tree(target) == ["a.jpg": "aaaa", "b.jpg": "bbbb", "sub/c.jpg": "cccc", "keep.tmp": "mine"], "\(Self.tree(target))")
        let first = try await Self.syncJob(db, "run1")
        #expect(first.state == "succeeded" && first.result["deleted"] == .int(2), "\(first)")

        // Added, changed (same size, other bytes) and deleted at the source.
        try Self.write(["d.jpg": "dddd", "b.jpg": "BBBB"], under: source)
        try FileManager.default.removeItem(atPath: source + "/a.jpg")
        #expect(try await Self.sync(fleet, source, to: target + "/", batch: "run2", exclude: ["*.tmp"]) == 0)
        #expect(Self.tree(target) == ["b.jpg": "BBBB", "sub/c.jpg": "cccc", "d.jpg": "dddd", "keep.tmp": "mine"], "\(Self.tree(target))")

        // Two deletions are due; a bound of one deletes nothing and says why.
        try FileManager.default.removeItem(atPath: source + "/sub")
        try FileManager.default.removeItem(atPath: source + "/d.jpg")
        #expect(try await Self.sync(fleet, source, to: target + "/", batch: "run3", exclude: ["*.tmp"], maxDelete: 1) == 1)
        let bounded = try await Self.syncJob(db, "run3")
        #expect(bounded.state == "failed" && bounded.error.contains("max_delete") && bounded.error.contains("--max-delete 2"), "\(bounded)")
        #expect(Self.tree(target)["sub/c.jpg"] == "cccc" && Self.tree(target)["d.jpg"] == "dddd", "nothing deleted")
        #expect(try await Self.sync(fleet, source, to: target + "/", batch: "run4", exclude: ["*.tmp"]) == 0)
        #expect(Self.tree(target) == ["b.jpg": "BBBB", "keep.tmp": "mine"], "\(Self.tree(target))")

        // A source that lists nothing deletes nothing without an explicit bound.
        let empty = root + "/empty"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        #expect(try await Self.sync(fleet, empty, to: target + "/", batch: "run5") == 1)
        #expect(try await Self.syncJob(db, "run5").error.contains("source_empty"))
        #expect(Self.tree(target).count == 2)
        #expect(try await fleet.projectionClean(), "ferry projection verify would pass")
    }

    @Test("no deletion after a failed copy, an unreadable source folder or on a worker that deletes nothing")
    func refusals() async throws {
        // Every commit the dev server takes is stored wrong: the Dropbox copy below fails.
        try await InProcessFleet.run("sync_refusals", configure: { $0.faults.corruptCommitRate = 1 }) { fleet in try await Self.refusals(fleet) }
    }

    static func refusals(_ fleet: InProcessFleet) async throws {
        let root = try temporaryFolder("sync-refuse")
        defer {
            chmod(root + "/src/locked", 0o755)
            try? FileManager.default.removeItem(atPath: root)
        }
        let (source, target) = (root + "/src", root + "/dst")
        try Self.write(["a.jpg": "a", "locked/b.jpg": "b"], under: source)
        try Self.write(["extra.jpg": "x", "locked/b.jpg": "b"], under: target)
        // Root reads every folder whatever its mode (CI runs as root): then there is nothing to refuse.
        chmod(source + "/locked", 0o000)
        if access(source + "/locked", R_OK) != 0 {
            #expect(try await Self.sync(fleet, source, to: target + "/", batch: "locked") == 1)
            let job = try await Self.syncJob(fleet.db, "locked")
            #expect(job.state == "failed" && job.error.contains("nothing was deleted"), "\(job)")
            #expect(Self.tree(target)["locked/b.jpg"] == "b" && Self.tree(target)["extra.jpg"] == "x")
        }
        chmod(source + "/locked", 0o755)
        // A name the listing cannot read (not UTF-8): the listing is incomplete, so nothing is deleted (as root too).
        let bytes: [UInt8] = Array((source + "/locked/").utf8) + [0x62, 0xff, 0x2e, 0x6a, 0x70, 0x67, 0]
        let fd = bytes.withUnsafeBufferPointer { open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_CREAT | O_WRONLY, 0o644) }
        try #require(fd >= 0)
        close(fd)
        #expect(try await Self.sync(fleet, source, to: target + "/", batch: "odd-name") == 1)
        let oddJob = try await Self.syncJob(fleet.db, "odd-name")
        #expect(oddJob.state == "failed" && oddJob.error.contains("nothing was deleted"), "\(oddJob)")
        #expect(Self.tree(target)["extra.jpg"] == "x", "nothing deleted")
        _ = bytes.withUnsafeBufferPointer { unlink(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self)) }

        // A copy that fails (every commit is stored wrong, one attempt each): the sync deletes nothing.
        let server = fleet.server
        try await fleet.addDropbox("box")
        _ = try await server.request(
            "POST", "/__dev/seed", json: .object(["account": .string("box"), "folder": .string("/Mirror"), "count": .int(3), "size": .int(10)]))
        #expect(try await Self.sync(fleet, source, to: "dropbox:box:/Mirror/", batch: "failed-copy", maxAttempts: 1) == 1)
        let failed = try await Self.syncJob(fleet.db, "failed-copy")
        #expect(failed.state == "failed" && failed.error.contains("sync_incomplete") && failed.error.contains("nothing was deleted"), "\(failed)")
        #expect((try await server.stats()["requests_per_route"]?["files/delete_v2"]?.intValue ?? 0) == 0, "nothing deleted")

        // A worker with --no-deletes runs the copies and deletes nothing.
        #expect(try await Self.sync(fleet, source, to: target + "/", batch: "no-deletes", allowsDeletes: false) == 1)
        let refused = try await Self.syncJob(fleet.db, "no-deletes")
        #expect(refused.state == "failed" && refused.error.contains("deletes_disabled"), "\(refused)")
        #expect(Self.tree(target)["extra.jpg"] == "x" && Self.tree(target)["a.jpg"] == "a", "copied, nothing deleted")
    }

    @Test("bad sync input is refused naming the fix, with nothing enqueued", .tags(.process))
    func refusedInput() async throws {
        let db = try await TestDatabase.make("sync_refused_input")
        let root = try temporaryFolder("sync-refused-input")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let (source, target) = (root + "/src", root + "/dst")
        try Self.write(["a.jpg": "a", "locked/b.jpg": "b"], under: source)
        for (arguments, message) in [
            (["sync", source, "--to", target], "end --to with /"),
            (["sync", source, source + "/locked", "--to", target + "/"], "one SRC"),
            (["sync", source, "--to", target + "/", "--max-delete", "-3"], "--max-delete"),
            (["sync", source, "--to", target + "/", "--option", "sync=5"], "sync sets itself"),
            (["sync", source + "/a.jpg", "--to", target + "/"], "folder"),
        ] {
            let refused = try await FerryProcess.run(["enqueue"] + arguments, databaseURL: db.url)
            #expect(refused.status != 0 && refused.stderr.contains(message), "\(arguments): \(refused.stderr)")
        }
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs") == 0)
    }

    @Test("Dropbox: kill -9 during the deletions; the next worker finishes them, each deleted once, the source's files kept", .tags(.process))
    func killedDuringDeletions() async throws {
        let db = try await TestDatabase.make("sync_kill")
        let server = try await DevServerProcess([])
        try await DropboxAccounts.add("box", server: server, databaseURL: db.url)
        let source = try temporaryFolder("sync-kill")
        defer { try? FileManager.default.removeItem(atPath: source) }
        try Self.write(["keep/a.jpg": "a", "keep/b.jpg": "b"], under: source)
        let extras = 1500
        try await DropboxFetchTests.seed(server, account: "box", folder: "/Mirror/old", count: extras, size: 10)
        let enqueued = try await FerryProcess.run(
            ["enqueue", "sync", source, "--to", "dropbox:box:/Mirror/", "--batch", "kill"], databaseURL: db.url)
        try #require(enqueued.status == 0, "\(enqueued.stderr)")
        // 10 ms a deletion, 15 s for all: the kill, from a process of its own once the second page of 50 is announced,
        // lands during the deletions however busy this test's task is.
        try await server.setFaults(["latency_milliseconds": .int(10), "routes": .array([.string("files/delete_v2")])])
        let first = try TestWorker.transfers(db, name: "first")
        try await WorkerFixtures.kill(
            first, in: db, when: "SELECT count(*) FROM ferry.jobs WHERE batch = 'kill' AND (session->>'deleted')::bigint >= 50")
        try await server.setFaults([:])
        let before = try await server.stats()["requests_per_route"]?["files/delete_v2"]?.intValue ?? 0
        #expect(before < extras, "killed before the end (\(before) of \(extras))")
        let second = try TestWorker.transfers(db, name: "second", ["--rescue-after", "1"])
        let waited = try await FerryProcess.run(["wait", "--batch", "kill", "--timeout", "600"], databaseURL: db.url)
        #expect(waited.status == 0, "\(waited.stdout)\(waited.stderr)")
        second.signal(SIGTERM)
        _ = try await second.waitForExit()
        let calls = try await server.stats()["requests_per_route"]?["files/delete_v2"]?.intValue ?? 0
        // The request in flight at the kill may have reached the server unapplied: it is sent once more, no other.
        #expect(calls >= extras && calls <= extras + 1, "each extra deleted once: \(calls) deletions for \(extras)")
        #expect(FileManager.default.contents(atPath: server.storedFile(account: "box", path: "/Mirror/keep/a.jpg")) == Data("a".utf8))
        let job = try await Self.syncJob(db, "kill")
        #expect(job.state == "succeeded" && job.result["deleted"] == .int(Int64(extras)), "\(job)")
        // Every deleted path was announced in a progress event before it went.
        let announced = try await count(
            db,
            """
            SELECT count(*) FROM ferry.events e, jsonb_array_elements_text(e.data->'session'->'deleting') p
             WHERE e.type = 'progress' AND e.job_id = (SELECT job_id FROM ferry.jobs WHERE batch = 'kill' AND spec ? 'sync')
            """)
        #expect(announced >= extras, "\(announced) announced")
    }

    @Test(
        "a dry run lists every copy, replacement and deletion and writes nothing; schedule add stores the sync job the in-process schedule case builds",
        .tags(.process))
    func dryRun() async throws {
        let db = try await TestDatabase.make("sync_dry_run")
        let root = try temporaryFolder("sync-dry")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let (source, target) = (root + "/src", root + "/dst")
        try Self.write(["a.jpg": "aa", "sub/b.jpg": "bb", "c.tmp": "t"], under: source)
        try Self.write(["a.jpg": "a", "stale.jpg": "s"], under: target)
        let dry = try await FerryProcess.run(
            ["enqueue", "sync", source, "--to", target + "/", "--exclude", "*.tmp", "--dry-run", "--max-delete", "0"], databaseURL: db.url)
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.lines.contains("replace a.jpg") && dry.lines.contains("copy sub/b.jpg") && dry.lines.contains("delete stale.jpg"), "\(dry.stdout)")
        #expect(!dry.stdout.contains("c.tmp") && dry.stderr.contains("--max-delete 0 would stop it"), "\(dry.stdout)\(dry.stderr)")
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs") == 0)
        #expect(Self.tree(target) == ["a.jpg": "a", "stale.jpg": "s"])

        let added = try await FerryProcess.run(
            ["schedule", "add", "mirror", "--every", "1s", "--", "sync", source, "--to", target + "/", "--exclude", "*.tmp"],
            databaseURL: db.url, environment: ["FERRY_SCHEDULE_MIN_INTERVAL": "1"])
        try #require(added.status == 0, "\(added.stderr)")
        let stored = try await db.query("SELECT template::text FROM ferry.schedules WHERE name = 'mirror'").rows[0].decode(String.self, at: 0)
        #expect(try JSONValue.parse(stored) == Self.request(source, to: target + "/", batch: nil, exclude: ["*.tmp"]).template, "\(stored)")
    }

    @Test("a scheduled sync with filters mirrors at each tick, each tick's run a batch of its own")
    func scheduledSync() async throws {
        try await InProcessFleet.run("sync_schedule") { fleet in try await Self.scheduledSync(fleet) }
    }

    static func scheduledSync(_ fleet: InProcessFleet) async throws {
        let db = fleet.db
        let root = try temporaryFolder("sync-sched")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let (source, target) = (root + "/src", root + "/dst")
        try Self.write(["a.jpg": "aa", "sub/b.jpg": "bb", "c.tmp": "t"], under: source)
        try Self.write(["stale.jpg": "s"], under: target)
        // `ferry schedule add mirror --every 1s -- sync SOURCE --to TARGET/ --exclude '*.tmp'`: the sync's job.
        try await fleet.addSchedule("mirror", everySeconds: 1, template: try Self.request(source, to: target + "/", batch: nil, exclude: ["*.tmp"]))
        let worker = try fleet.worker("mirror", scheduleInterval: .milliseconds(200))
        try await eventually(timeout: .seconds(300), "the first tick's mirror") {
            Self.tree(target) == ["a.jpg": "aa", "sub/b.jpg": "bb"]
        }
        try FileManager.default.removeItem(atPath: source + "/sub/b.jpg")
        try await eventually(timeout: .seconds(300), "a later tick's deletion") { Self.tree(target) == ["a.jpg": "aa"] }
        try await fleet.pauseSchedule("mirror")
        try await fleet.stop([worker])
        // Each tick's run is a batch of its own: a tick never waits for another tick's copies.
        let batches = try await count(db, "SELECT count(DISTINCT batch) FROM ferry.jobs WHERE spec ? 'sync'")
        let syncs = try await count(db, "SELECT count(*) FROM ferry.jobs WHERE spec ? 'sync'")
        #expect(batches == syncs && syncs >= 2)
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE spec ? 'sync' AND state = 'failed'") == 0)
    }
}
