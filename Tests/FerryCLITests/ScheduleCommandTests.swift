import FerryCore
import FerryTestSupport
import Foundation
import Postgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `ferry schedule`: the CLI against a real database, and real worker processes firing ticks.
@Suite("ferry schedule", .tags(.postgres, .process))
struct ScheduleCommandTests {
    /// Schedules as short as 1 s, for the firing tests only.
    static let shortTicks = ["FERRY_SCHEDULE_MIN_INTERVAL": "1"]

    static func worker(_ db: TestDatabase, name: String) throws -> BackgroundProcess {
        try BackgroundProcess(
            ferry: ["worker", "--name", name, "--handler", "noop", "--schedule-interval", "0.2", "--heartbeat-interval", "0.5",
                    "--poll-interval", "0.5"], databaseURL: db.url)
    }

    /// Every tick from the first fired one to the last is accounted for exactly once: fired (one row, one job with
    /// the tick's key) or counted as missed by the next fired one. Answers the number of rows.
    static func checkTicks(_ db: TestDatabase, schedule: String, every: Double) async throws -> Int {
        let rows = try await db.query(
            """
            SELECT extract(epoch FROM t.tick_at)::float8, t.missed, t.job_id, j.idempotency_key,
                   extract(epoch FROM t.first_missed)::float8
              FROM ferry.schedule_ticks t LEFT JOIN ferry.jobs j ON j.job_id = t.job_id
             WHERE t.schedule = $1 ORDER BY t.tick_at
            """, [schedule]).rows
        var previous: Double?
        for row in rows {
            let tick = try row.decode(Double.self, at: 0)
            let missed = try row.decode(Int64.self, at: 1)
            #expect(try row.decode(UUID?.self, at: 2) != nil, "every tick enqueued its job")
            let key = try row.decode(String?.self, at: 3)
            #expect(key == "schedule:\(schedule):" + ScheduleTime.iso8601(Date(timeIntervalSince1970: tick)), "the job carries the tick's key")
            if let previous {
                #expect(tick - previous == Double(missed + 1) * every, "ticks follow each other: \(previous) → \(tick) with \(missed) missed")
                if missed > 0 { #expect(try row.decode(Double?.self, at: 4) == previous + every) }
            }
            previous = tick
        }
        let jobs = try await count(db, "SELECT count(*) FROM ferry.jobs WHERE idempotency_key LIKE $1", ["schedule:\(schedule):%"])
        #expect(jobs == rows.count, "one job per fired tick, none else")
        return rows.count
    }

    @Test("add, list, show, pause, resume, remove; bad input is refused with nothing stored")
    func commands() async throws {
        let db = try await TestDatabase.make("sched")
        func ferry(_ arguments: [String], environment: [String: String] = [:]) async throws -> FerryProcess.Result {
            try await FerryProcess.run(["schedule"] + arguments, databaseURL: db.url, environment: environment)
        }
        let job = ["--", "fetch", "https://example.com/feed.jpg", "--to", "/srv/feed/"]
        let refusals: [([String], Int32, String)] = [
            (["add", "Bad Name", "--every", "1h"] + job, 65, "not a schedule name"),
            (["add", "s"] + job, 64, "--every 1h"),
            (["add", "s", "--every", "1h", "--cron", "0 * * * *"] + job, 64, "not both"),
            (["add", "s", "--every", "10s"] + job, 65, "shorter than the minimum of 1m"),
            (["add", "s", "--every", "soon"] + job, 65, "not an interval"),
            (["add", "s", "--every", "1h", "--timezone", "Europe/Paris"] + job, 64, "--timezone applies to --cron"),
            (["add", "s", "--cron", "61 * * * *"] + job, 65, "minute field"),
            (["add", "s", "--cron", "0 0 30 2 *"] + job, 65, "never matches"),
            (["add", "s", "--cron", "0 * * * *", "--timezone", "Mars/Olympus"] + job, 65, "not a time zone"),
            (["add", "s", "--every", "1h"], 64, "give the job after --"),
            (["add", "s", "--every", "1h", "--overlap", "maybe"] + job, 65, "not an overlap policy"),
            (["add", "s", "--every", "1h", "--", "fetch", "ftp://example.com/a", "--to", "/srv/"], 65, "job template"),
            (["add", "s", "--every", "1h", "--", "fetch", "https://example.com/a", "--to", "/srv/", "--bogus"], 64, "job template after --"),
            (["add", "s", "--every", "1h", "--", "fetch", "https://example.com/a", "https://example.com/b", "--to", "/srv/"], 64, "one source per schedule"),
            (["add", "s", "--every", "1h", "--", "fetch", "https://example.com/a", "--to", "/srv/", "--key", "k"], 64, "--key and --run-at"),
            (["add", "s", "--every", "1h", "--", "upload", "/etc/hostname", "--to", "/srv/"], 64, "upload DIR --recursive --to DEST/"),
            (["add", "s", "--every", "1h", "--", "fetch", "dropbox:nobody:/Camera", "--to", "/srv/"], 65, "unknown account 'nobody'"),
            (["add", "s", "--every", "1h", "--", "fetch", "https://example.com/a", "--to", "/srv/", "--option", "max=3"], 65, "job template"),
            (["pause", "ghost"], 66, "no schedule named 'ghost'"),
            (["remove", "ghost"], 66, "no schedule named 'ghost'"),
            (["show", "ghost"], 66, "no schedule named 'ghost'"),
        ]
        for (arguments, status, message) in refusals {
            let result = try await ferry(arguments)
            #expect(result.status == status, "\(arguments): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(!result.stderr.contains("Fatal error") && !result.stderr.contains("0x0"), "no stack trace")
        }
        #expect(try await count(db, "SELECT count(*) FROM ferry.schedule_events") == 0, "nothing was stored")
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs") == 0, "the template probe left no job")

        let added = try await ferry(["add", "feed", "--every", "1h", "--json"] + job)
        #expect(added.status == 0, "\(added.stderr)")
        let record = try JSONValue.parse(added.stdout)
        #expect(record["spec"] == .string("every 1h") && record["paused"] == .bool(false))
        #expect(record["overlap"] == .string("skip"), "a tick waits for the previous run unless told otherwise")
        let next = try #require(record["next_tick"]?.stringValue)
        #expect(next.hasSuffix(":00:00Z"), "hourly ticks fall on the hour: \(next)")
        #expect(record["template"]?["to"] == .string("/srv/feed/"))
        let again = try await ferry(["add", "feed", "--every", "2h"] + job)
        #expect(again.status == 65 && again.stderr.contains("exists already") && again.stderr.contains("--replace"), "\(again.stderr)")
        let replaced = try await ferry(["add", "feed", "--every", "2h", "--overlap", "allow", "--replace"] + job)
        #expect(replaced.status == 0 && replaced.stdout.hasPrefix("replaced feed: every 2h"), "\(replaced.stdout)\(replaced.stderr)")
        #expect(try await count(db, "SELECT count(*) FROM ferry.schedule_status WHERE name = 'feed' AND overlap = 'allow'") == 1)

        let paris = try await ferry(
            ["add", "morning", "--cron", "30 6 * * mon-fri", "--timezone", "Europe/Paris", "--", "fetch",
             "https://example.com/m.jpg", "--to", "relative/dir/", "--queue", "feeds", "--priority", "5"])
        #expect(paris.status == 0, "\(paris.stderr)")
        let shown = try JSONValue.parse(try await ferry(["show", "morning", "--json"]).stdout)
        let ticks = try #require(shown["next_ticks"]?.arrayValue)
        #expect(ticks.count == 5)
        for tick in ticks {
            // 06:30 in Paris is 05:30Z in winter.
            #expect(tick.stringValue?.hasSuffix("T05:30:00Z") == true, "\(tick)")
        }
        #expect(shown["template"]?["queue"] == .string("feeds") && shown["runs"] == .array([]))
        #expect(shown["template"]?["to"]?.stringValue?.hasPrefix("/") == true, "a relative --to is stored absolute")
        let text = try await ferry(["show", "morning"])
        #expect(text.stdout.contains("cron 30 6 * * mon-fri (Europe/Paris)") && text.stdout.contains("+01:00 Europe/Paris"), "\(text.stdout)")

        let list = try JSONValue.parse(try await ferry(["list", "--json"]).stdout).arrayValue ?? []
        #expect(list.compactMap { $0["name"]?.stringValue } == ["feed", "morning"])
        #expect(try await ferry(["pause", "feed"]).stdout.contains("paused feed"))
        #expect(try await ferry(["pause", "feed"]).stdout.contains("already paused"))
        let table = try await ferry(["list"])
        #expect(table.stdout.contains("paused") && table.stdout.contains("every 2h"), "\(table.stdout)")
        let resumed = try JSONValue.parse(try await ferry(["resume", "feed", "--json"]).stdout)
        #expect(resumed["changed"] == .bool(true))
        #expect(try await ferry(["remove", "feed"]).stdout.contains("removed feed"))
        #expect(try await ferry(["pause", "feed"]).status == 66, "a removed schedule is gone for pause")
        let live = try JSONValue.parse(try await ferry(["list", "--json"]).stdout).arrayValue ?? []
        #expect(live.compactMap { $0["name"]?.stringValue } == ["morning"])
        let all = try JSONValue.parse(try await ferry(["list", "--removed", "--json"]).stdout).arrayValue ?? []
        #expect(all.first?["removed"] == .bool(true))

        let history = try await db.query(
            "SELECT type, recorded_by = current_user FROM ferry.schedule_events WHERE schedule = 'feed' ORDER BY position").rows
        #expect(try history.map { try $0.decode(String.self, at: 0) } == ["added", "replaced", "paused", "resumed", "removed"])
        // The history is append-only, and the projection is the triggers' alone.
        for statement in ["DELETE FROM ferry.schedule_events", "UPDATE ferry.schedule_ticks SET missed = 0"] {
            await expectSQLState("42501", "\(statement)") { _ = try await db.query(statement) }
        }
        // Adding a removed name again starts afresh.
        let readd = try await ferry(["add", "feed", "--every", "1d"] + job)
        #expect(readd.status == 0 && readd.stdout.hasPrefix("added feed"), "\(readd.stdout)\(readd.stderr)")
    }

    @Test("three workers fire a 1 s schedule: one job per tick, consecutive ticks, none twice, also across a kill -9")
    func racingWorkers() async throws {
        let db = try await TestDatabase.make("schedrace")
        let workers = try (0..<3).map { try Self.worker(db, name: "w\($0)") }
        defer { for worker in workers where worker.isRunning { worker.signal(SIGKILL) } }
        let add = try await FerryProcess.run(
            ["schedule", "add", "tick", "--every", "1s", "--overlap", "allow", "--", "fetch", "https://example.com/t.jpg", "--to", "/srv/t/"],
            databaseURL: db.url, environment: Self.shortTicks)
        #expect(add.status == 0, "\(add.stderr)")
        try await eventually(timeout: .seconds(300), "five ticks") {
            try await count(db, "SELECT count(*) FROM ferry.schedule_ticks") >= 5
        }
        // A worker killed at an arbitrary moment (maybe mid-firing: its transaction rolls back) loses no tick.
        workers[0].signal(SIGKILL)
        let atKill = try await count(db, "SELECT count(*) FROM ferry.schedule_ticks")
        try await eventually(timeout: .seconds(300), "five more ticks after the kill") {
            try await count(db, "SELECT count(*) FROM ferry.schedule_ticks") >= atKill + 5
        }
        #expect(try await FerryProcess.run(["schedule", "pause", "tick"], databaseURL: db.url).status == 0)
        for worker in workers.dropFirst() {
            worker.signal(SIGTERM)
            #expect(try await worker.waitForExit() == 0, "\(worker.log)")
        }
        let fired = try await Self.checkTicks(db, schedule: "tick", every: 1)
        #expect(fired >= 10)
        #expect(try await count(db, "SELECT count(DISTINCT tick_at) FROM ferry.schedule_runs WHERE schedule = 'tick'") == fired)
        let show = try JSONValue.parse(try await FerryProcess.run(["schedule", "show", "tick", "--json", "--limit", "3"], databaseURL: db.url).stdout)
        let runs = show["runs"]?.arrayValue ?? []
        #expect(runs.count == 3 && runs.allSatisfy { $0["job_id"]?.stringValue != nil && $0["job_state"]?.stringValue != nil }, "\(show)")
        #expect(try await FerryProcess.run(["projection", "verify"], databaseURL: db.url).status == 0)
    }

    @Test("after no worker ran for several ticks the first one catches up once; a paused schedule does not fire")
    func catchUpAndPause() async throws {
        let db = try await TestDatabase.make("schedcatch")
        let add = try await FerryProcess.run(
            ["schedule", "add", "late", "--every", "1s", "--overlap", "allow", "--", "fetch", "https://example.com/l.jpg", "--to", "/srv/l/"],
            databaseURL: db.url, environment: Self.shortTicks)
        #expect(add.status == 0, "\(add.stderr)")
        // No worker runs while several ticks pass.
        try await eventually(timeout: .seconds(300), "four ticks to pass unfired") {
            try await count(db, "SELECT count(*) FROM ferry.schedules WHERE now() - next_tick > interval '4 s'") == 1
        }
        let first = try Self.worker(db, name: "late-1")
        defer { if first.isRunning { first.signal(SIGKILL) } }
        try await eventually(timeout: .seconds(300), "the catch-up tick") {
            try await count(db, "SELECT count(*) FROM ferry.schedule_ticks") >= 1
        }
        let catchUp = try await db.query(
            "SELECT missed, first_missed = (SELECT (data->>'next_tick')::timestamptz FROM ferry.schedule_events WHERE type = 'added') FROM ferry.schedule_ticks ORDER BY tick_at LIMIT 1").rows[0]
        #expect(try catchUp.decode(Int64.self, at: 0) >= 4, "the skipped ticks are recorded as missed")
        #expect(try catchUp.decode(Bool.self, at: 1), "from the first unfired tick on")
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs j JOIN ferry.schedule_ticks t ON t.job_id = j.job_id WHERE t.position = (SELECT min(position) FROM ferry.schedule_ticks)") == 1)

        #expect(try await FerryProcess.run(["schedule", "pause", "late"], databaseURL: db.url).status == 0)
        let atPause = try await count(db, "SELECT count(*) FROM ferry.schedule_ticks")
        // Absence needs time to show: three ticks' worth after the pause.
        try await eventually(timeout: .seconds(300), "three seconds after the pause") {
            try await count(db, "SELECT count(*) FROM ferry.schedules WHERE now() - changed_at > interval '3 s'") == 1
        }
        #expect(try await count(db, "SELECT count(*) FROM ferry.schedule_ticks") == atPause, "a paused schedule fires nothing")
        #expect(try await FerryProcess.run(["schedule", "resume", "late"], databaseURL: db.url).status == 0)
        try await eventually(timeout: .seconds(300), "ticks after the resume") {
            try await count(db, "SELECT count(*) FROM ferry.schedule_ticks") >= atPause + 2
        }
        let afterResume = try await db.query(
            "SELECT missed FROM ferry.schedule_ticks WHERE tick_at > (SELECT changed_at FROM ferry.schedules) ORDER BY tick_at LIMIT 1").rows
        #expect(try afterResume.first?.decode(Int64.self, at: 0) ?? 0 < 3, "ticks that fell while paused are not caught up")
        #expect(try await FerryProcess.run(["schedule", "remove", "late"], databaseURL: db.url).status == 0)
        first.signal(SIGTERM)
        #expect(try await first.waitForExit() == 0)
        let rows = try await count(db, "SELECT count(*) FROM ferry.schedule_runs WHERE schedule = 'late'")
        #expect(rows >= atPause + 2, "removing keeps the history")
        let jobs = try await count(db, "SELECT count(*) FROM ferry.jobs WHERE idempotency_key LIKE 'schedule:late:%'")
        #expect(jobs == rows)
    }

    @Test("roles: a producer manages schedules, a worker fires them, a reader sees the history; none can do the others' part")
    func roles() async throws {
        let db = try await TestDatabase.make("schedroles")
        let suffix = UInt32.random(in: 0...UInt32.max)
        var urls = [String: String]()
        for group in ["producer", "worker", "reader"] {
            let name = "sched_\(group)_\(suffix)"
            try await db.query("CREATE ROLE \(name) LOGIN IN ROLE ferry_\(group)")
            urls[group] = db.url.replacingOccurrences(of: "postgres@", with: "\(name)@")
        }
        let (producer, worker, reader) = (urls["producer"]!, urls["worker"]!, urls["reader"]!)
        // A producer's shortest interval is the owner's setting (a minute unless lowered), checked in SQL.
        try await db.query("UPDATE ferry.settings SET value = '1' WHERE name = 'schedule_min_interval_seconds'")
        let add = ["schedule", "add", "r", "--every", "1s", "--overlap", "allow", "--", "fetch", "https://example.com/r.jpg", "--to", "/srv/r/"]
        for url in [reader, worker] {
            let refused = try await FerryProcess.run(add, databaseURL: url, environment: Self.shortTicks)
            #expect(refused.status == 77 && refused.stderr.contains("42501"), "\(refused.status) \(refused.stderr)")
        }
        let added = try await FerryProcess.run(add, databaseURL: producer, environment: Self.shortTicks)
        #expect(added.status == 0, "\(added.stderr)")
        let process = try BackgroundProcess(
            ferry: ["worker", "--handler", "noop", "--schedule-interval", "0.2", "--heartbeat-interval", "0.5"], databaseURL: worker)
        defer { if process.isRunning { process.signal(SIGKILL) } }
        try await eventually(timeout: .seconds(300), "a worker login to fire two ticks") {
            try await count(db, "SELECT count(*) FROM ferry.schedule_ticks WHERE job_id IS NOT NULL") >= 2
        }
        #expect(try await FerryProcess.run(["schedule", "pause", "r"], databaseURL: worker).status == 77)
        #expect(try await FerryProcess.run(["schedule", "pause", "r"], databaseURL: producer).status == 0)
        process.signal(SIGTERM)
        #expect(try await process.waitForExit() == 0)
        let client = PostgresClient(configuration: PostgresConfiguration(connectionString: reader, poolSize: 1))
        defer { client.close() }
        let seen = try await client.withConnection { connection in
            try connection.query("SELECT count(*) FROM ferry.schedule_runs r JOIN ferry.schedule_status s ON s.name = r.schedule").rows[0]
                .decode(Int.self, at: 0)
        }
        #expect(seen >= 2, "a reader sees the history and the state")
        await expectSQLState("42501", "a reader may not write schedule history") {
            try await client.withConnection { connection in
                _ = try connection.query("INSERT INTO ferry.schedule_events (schedule, type) VALUES ('r', 'resumed')")
            }
        }
    }

    @Test("a tick whose job no longer validates (its account was removed) records why, enqueues nothing and moves on")
    func templateGoneBad() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("schedbad")
        let account = try await FerryProcess.run(
            ["account", "add", "fl", "--provider", "flickr", "--api-key-file", "-",
             "--api-url", server.baseURL + "/services/rest/", "--content-url", server.baseURL + "/flickr/photos"],
            databaseURL: db.url, stdin: "ferry-dev-flickr\n", environment: DropboxAccounts.environment)
        #expect(account.status == 0, "\(account.stderr)")
        let add = try await FerryProcess.run(
            ["schedule", "add", "stream", "--every", "1s", "--overlap", "allow", "--", "fetch", "flickr:1@N01", "--to", "/srv/f/", "--account", "fl"],
            databaseURL: db.url, environment: Self.shortTicks)
        #expect(add.status == 0, "\(add.stderr)")
        _ = try await db.query("DELETE FROM ferry.accounts WHERE name = 'fl'")
        let worker = try BackgroundProcess(
            ferry: ["worker", "--handler", "noop", "--schedule-interval", "0.2"], databaseURL: db.url,
            environment: DropboxAccounts.environment)
        defer { if worker.isRunning { worker.signal(SIGKILL) } }
        try await eventually(timeout: .seconds(300), "two ticks recorded") {
            try await count(db, "SELECT count(*) FROM ferry.schedule_runs") >= 2
        }
        worker.signal(SIGTERM)
        #expect(try await worker.waitForExit() == 0)
        let rows = try await db.query("SELECT job_id IS NULL, error FROM ferry.schedule_runs ORDER BY tick_at").rows
        for row in rows {
            #expect(try row.decode(Bool.self, at: 0), "no job")
            #expect(try row.decode(String?.self, at: 1)?.contains("unknown account 'fl'") == true)
        }
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs") == 0)
        #expect(worker.log.contains("schedule tick enqueued nothing"))
        let show = try await FerryProcess.run(["schedule", "show", "stream"], databaseURL: db.url)
        #expect(show.stdout.contains("error: ") && show.stdout.contains("unknown account"), "\(show.stdout)")
    }

    @Test("kill -9 of a worker in the middle of firing (job written, not committed): nothing of it stays, the next worker fires the tick")
    func killedWhileFiring() async throws {
        let db = try await TestDatabase.make("schedkill")
        let add = try await FerryProcess.run(
            ["schedule", "add", "k", "--every", "1s", "--overlap", "allow", "--", "fetch", "https://example.com/k.jpg", "--to", "/srv/k/"],
            databaseURL: db.url, environment: Self.shortTicks)
        #expect(add.status == 0, "\(add.stderr)")
        let first = try await db.query("SELECT next_tick FROM ferry.schedules").rows[0].decode(Date.self, at: 0)
        let doomed = try BackgroundProcess(
            ferry: ["worker", "--name", "doomed", "--handler", "noop", "--schedule-interval", "0.2"], databaseURL: db.url,
            environment: ["FERRY_SCHEDULE_CRASH_AT": "enqueued"])
        _ = try await doomed.waitForExit()
        #expect(!doomed.isRunning)
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs") == 0, "the job of the interrupted firing rolled back")
        #expect(try await count(db, "SELECT count(*) FROM ferry.schedule_ticks") == 0)
        let survivor = try Self.worker(db, name: "survivor")
        defer { if survivor.isRunning { survivor.signal(SIGKILL) } }
        try await eventually(timeout: .seconds(300), "three ticks by the survivor") {
            try await count(db, "SELECT count(*) FROM ferry.schedule_ticks") >= 3
        }
        #expect(try await FerryProcess.run(["schedule", "pause", "k"], databaseURL: db.url).status == 0)
        survivor.signal(SIGTERM)
        #expect(try await survivor.waitForExit() == 0)
        _ = try await Self.checkTicks(db, schedule: "k", every: 1)
        // The tick the dead worker was firing is not lost: fired, or counted as missed by the catch-up.
        let earliest = try await db.query("SELECT tick_at, first_missed FROM ferry.schedule_ticks ORDER BY tick_at LIMIT 1").rows[0]
        let accounted = try earliest.decode(Date?.self, at: 1) ?? earliest.decode(Date.self, at: 0)
        #expect(accounted == first, "the interrupted tick is accounted for")
        #expect(try await count(db, "SELECT count(DISTINCT worker) FROM ferry.schedule_ticks WHERE worker = 'doomed'") == 0)
    }

    @Test("overlap skip: ticks while the last run (its job or any job of its batch) is unfinished are recorded as skipped for it; then it fires again")
    func overlapSkip() async throws {
        let db = try await TestDatabase.make("schedoverlap")
        let add = try await FerryProcess.run(
            ["schedule", "add", "o", "--every", "1s", "--", "fetch", "https://example.com/o.jpg", "--to", "/srv/o/"],
            databaseURL: db.url, environment: Self.shortTicks)
        #expect(add.status == 0, "\(add.stderr)")
        // This worker fires ticks but claims nothing: the first tick's job stays queued.
        let worker = try BackgroundProcess(
            ferry: ["worker", "--name", "o-1", "--queues", "elsewhere", "--schedule-interval", "0.2", "--heartbeat-interval", "0.5"],
            databaseURL: db.url)
        defer { if worker.isRunning { worker.signal(SIGKILL) } }
        try await eventually(timeout: .seconds(300), "two ticks skipped for the first one's job") {
            try await count(db, "SELECT count(*) FROM ferry.schedule_runs WHERE schedule = 'o' AND skipped_for IS NOT NULL") >= 2
        }
        let first = try await db.query(
            "SELECT job_id, tick_at FROM ferry.schedule_runs WHERE schedule = 'o' AND job_id IS NOT NULL").rows
        #expect(first.count == 1, "one run while it is unfinished")
        let firstJob = try first[0].decode(UUID.self, at: 0)
        let batch = try await db.query("SELECT batch, idempotency_key FROM ferry.jobs WHERE job_id = $1", [firstJob]).rows[0]
        let batchName = try batch.decode(String.self, at: 0)
        #expect(batchName == (try batch.decode(String.self, at: 1)), "a template without --batch makes each run a batch named by its key")
        #expect(try await count(
            db, "SELECT count(*) FROM ferry.schedule_runs WHERE schedule = 'o' AND skipped_for IS NOT NULL AND skipped_for <> $1", [firstJob]) == 0)
        #expect(try await count(db, "SELECT count(*) FROM ferry.schedule_status WHERE name = 'o' AND last_job_id = $1", [firstJob]) == 1)

        // A job of the run's batch (as a listing's children are) keeps the run going after its first job ended.
        let child = try await FerryProcess.run(
            ["enqueue", "fetch", "https://example.com/child.jpg", "--to", "/srv/o/", "--batch", batchName], databaseURL: db.url)
        #expect(child.status == 0, "\(child.stderr)")
        #expect(try await FerryProcess.run(["cancel", firstJob.uuidString.lowercased()], databaseURL: db.url).status == 0)
        let afterCancel = try await db.query("SELECT clock_timestamp()::text").rows[0].decode(String.self, at: 0)
        try await eventually(timeout: .seconds(300), "two ticks after the cancel, still skipped for the unfinished batch") {
            try await count(db, "SELECT count(*) FROM ferry.schedule_ticks WHERE schedule = 'o' AND fired_at > $1::timestamptz AND skipped_for = $2",
                                 [afterCancel, firstJob]) >= 2
        }
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE idempotency_key LIKE 'schedule:o:%'") == 1)

        // The whole run over: the next tick enqueues.
        #expect(try await FerryProcess.run(["cancel", "--batch", batchName], databaseURL: db.url).status == 0)
        try await eventually(timeout: .seconds(300), "a second run") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE idempotency_key LIKE 'schedule:o:%'") == 2
        }
        #expect(try await FerryProcess.run(["schedule", "pause", "o"], databaseURL: db.url).status == 0)
        worker.signal(SIGTERM)
        #expect(try await worker.waitForExit() == 0, "\(worker.log)")
        #expect(worker.log.contains("schedule tick skipped"))

        let shown = try JSONValue.parse(try await FerryProcess.run(["schedule", "show", "o", "--json", "--limit", "1000"], databaseURL: db.url).stdout)
        #expect(shown["overlap"] == .string("skip"))
        let runs = shown["runs"]?.arrayValue ?? []
        #expect(runs.filter { $0["job_id"]?.stringValue != nil }.count == 2)
        #expect(runs.contains { $0["skipped_for"]?.stringValue == firstJob.uuidString.lowercased() && $0["job_id"] == .null })
        let text = try await FerryProcess.run(["schedule", "show", "o"], databaseURL: db.url).stdout
        #expect(text.contains("skipped: \(firstJob.uuidString.lowercased()) still going"), "\(text)")
        // Every tick has exactly one outcome, and the history is still append-only.
        #expect(try await count(
            db, "SELECT count(*) FROM ferry.schedule_ticks WHERE num_nonnulls(job_id, error, skipped_for) <> 1") == 0)
        await expectSQLState("23514", "a tick has exactly one outcome (schedule_ticks_outcome)") {
            _ = try await db.query("INSERT INTO ferry.schedule_ticks (schedule, tick_at, job_id, skipped_for) VALUES ('o', now(), $1, $1)", [firstJob])
        }
    }

    @Test("schedule run: no worker → exit 75 and the request stays; a worker fires one manual run at once, regular ticks untouched; skip when still going; a paused schedule runs too")
    func runNow() async throws {
        let db = try await TestDatabase.make("schedrun")
        func ferry(_ arguments: [String]) async throws -> FerryProcess.Result {
            try await FerryProcess.run(["schedule"] + arguments, databaseURL: db.url)
        }
        let add = try await ferry(["add", "nightly", "--every", "1d", "--", "fetch", "https://example.com/n.jpg", "--to", "/srv/n/"])
        #expect(add.status == 0, "\(add.stderr)")
        let nextTick = try await db.query("SELECT next_tick::text FROM ferry.schedules WHERE name = 'nightly'").rows[0].decode(String.self, at: 0)

        // Refusals: unknown and removed schedules, a bad timeout; nothing stored.
        #expect(try await ferry(["run", "nosuch", "--timeout", "1"]).status == 66)
        #expect(try await ferry(["run", "nightly", "--timeout", "0"]).status == 65)
        #expect(try await count(db, "SELECT count(*) FROM ferry.schedule_events WHERE type = 'run_requested'") == 0)

        // No worker: the request is recorded, the command says so (75), and a second request is the same one.
        let alone = try await ferry(["run", "nightly", "--timeout", "1"])
        #expect(alone.status == 75, "\(alone.stderr)")
        #expect(alone.stderr.contains("no worker fired the run of nightly") && alone.stderr.contains("ferry worker"))
        let requested = try await db.query("SELECT run_requested_at::text FROM ferry.schedule_status WHERE name = 'nightly'").rows[0]
            .decode(String?.self, at: 0)
        #expect(requested != nil, "the request stays for a worker")
        let again = try JSONValue.parse(try await ferry(["run", "nightly", "--no-wait", "--json"]).stdout)
        #expect(again["requested_at"]?.stringValue != nil)
        #expect(try await db.query("SELECT run_requested_at::text FROM ferry.schedules WHERE name = 'nightly'").rows[0]
            .decode(String?.self, at: 0) == requested, "a request while another waits is that request")

        // This worker fires but claims nothing (another queue): the run's job stays queued, so a second run is skipped.
        // Its schedule interval is an hour: only the request's notification can make it look in time.
        let worker = try BackgroundProcess(
            ferry: ["worker", "--name", "run-1", "--queues", "elsewhere", "--schedule-interval", "3600", "--heartbeat-interval", "0.5"],
            databaseURL: db.url)
        defer { if worker.isRunning { worker.signal(SIGKILL) } }
        try await eventually(timeout: .seconds(120), "the waiting request fired once the worker started") {
            try await count(db, "SELECT count(*) FROM ferry.schedule_runs WHERE schedule = 'nightly' AND manual AND job_id IS NOT NULL") == 1
        }
        #expect(try await db.query("SELECT run_requested_at FROM ferry.schedules WHERE name = 'nightly'").rows[0]
            .decode(Date?.self, at: 0) == nil, "the request was answered")
        // The default overlap is skip: the first run's job is still queued.
        let skipped = try await ferry(["run", "nightly", "--timeout", "60"])
        #expect(skipped.status == 75, "\(skipped.stderr)")
        #expect(skipped.stderr.contains("is still going"), "\(skipped.stderr)")
        #expect(try await count(db, "SELECT count(*) FROM ferry.schedule_runs WHERE schedule = 'nightly' AND manual AND skipped_for IS NOT NULL") == 1)

        // Once that run is over, a run now enqueues at once and prints its job, paused or not.
        let firstJob = try await db.query(
            "SELECT job_id FROM ferry.schedule_runs WHERE schedule = 'nightly' AND manual AND job_id IS NOT NULL").rows[0].decode(UUID.self, at: 0)
        #expect(try await FerryProcess.run(["cancel", firstJob.uuidString.lowercased()], databaseURL: db.url).status == 0)
        #expect(try await ferry(["pause", "nightly"]).status == 0)
        let ran = try await ferry(["run", "nightly", "--timeout", "60"])
        #expect(ran.status == 0, "\(ran.stderr)")
        let job = try #require(UUID(uuidString: ran.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        let key = try await db.query("SELECT idempotency_key FROM ferry.jobs WHERE job_id = $1", [job]).rows[0].decode(String.self, at: 0)
        #expect(key.hasPrefix("schedule:nightly:"), "a manual run's job is keyed by its time like a tick's")
        #expect(try await db.query("SELECT next_tick::text, paused FROM ferry.schedules WHERE name = 'nightly'").rows[0]
            .decode(String.self, at: 0) == nextTick, "the regular ticks stayed where they were")
        let shown = try await ferry(["show", "nightly"]).stdout
        #expect(shown.contains("(run now)"), "\(shown)")
        worker.signal(SIGTERM)
        #expect(try await worker.waitForExit() == 0, "\(worker.log)")
        #expect(worker.log.contains("schedule fired"))
    }
}
