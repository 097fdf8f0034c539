import FerryCore
import FerryTestSupport
import Foundation
import Postgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `ferry queue pause|resume`: real workers, a real database.
@Suite("ferry queue pause and resume", .tags(.postgres, .process))
struct QueuePauseTests {
    static func enqueue(_ db: TestDatabase, queue: String, count: Int, batch: String) async throws {
        let urls = (0..<count).map { "https://example.com/\(batch)/\($0).jpg" }
        let result = try await FerryProcess.run(
            ["enqueue", "fetch"] + urls + ["--to", "/srv/\(batch)/", "--queue", queue, "--batch", batch], databaseURL: db.url)
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test("a paused queue is skipped while others run; its running job finishes; resume lets the rest go; history in SQL")
    func pauseAndResume() async throws {
        let db = try await TestDatabase.make("qpause")
        // 400 jobs of 1.5 s one at a time: ten minutes of work, so the pause comes first however late the test task runs
        // (a minute of work was not enough on a machine busy with builds).
        try await Self.enqueue(db, queue: "photos", count: 400, batch: "held")
        let worker = try BackgroundProcess(
            ferry: ["worker", "--queues", "photos,other", "--handler", "sleep:1500", "--concurrency", "1",
                    "--heartbeat-interval", "0.3", "--poll-interval", "0.2"], databaseURL: db.url)
        // Pause once work has started (a test task can be held up for seconds on a busy machine, so the condition is
        // one that stays true, not a moment to catch): what runs then finishes, nothing more is claimed.
        try await eventually(timeout: .seconds(300), "the first job to start") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'held' AND state <> 'queued'") >= 1
        }
        let pause = try await FerryProcess.run(["queue", "pause", "photos", "--reason", "maintenance"], databaseURL: db.url)
        #expect(pause.status == 0 && pause.stdout.contains("paused photos"), "\(pause.stderr)")
        let again = try await FerryProcess.run(["queue", "pause", "photos"], databaseURL: db.url)
        #expect(again.status == 0 && again.stdout.contains("already paused"))
        try await eventually(timeout: .seconds(300), "the running job to finish") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'running'") == 0
        }
        let started = try await count(db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'held' AND state <> 'queued'")
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'held' AND state = 'succeeded'") == started,
                "the jobs running at the pause finished (not released)")
        #expect(started < 400, "the pause came before the queue drained")
        // The worker is alive and claiming: a job in another queue runs while photos stays paused.
        try await Self.enqueue(db, queue: "other", count: 1, batch: "free")
        try await eventually(timeout: .seconds(300), "the other queue's job to run") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'free' AND state = 'succeeded'") == 1
        }
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'held' AND state = 'queued'") == 400 - started,
                "nothing was claimed from the paused queue")
        let list = try await FerryProcess.run(["queue", "list", "--json"], databaseURL: db.url)
        let controls = try JSONValue.parse(list.stdout)
        #expect(controls.arrayValue?.first?["paused"] == .bool(true) && controls.arrayValue?.first?["reason"] == .string("maintenance"))

        #expect(try await count(db, "SELECT count(*) FROM ferry.queue_stats WHERE queue = 'photos' AND paused") >= 1)
        let status = try await FerryProcess.run(["status"], databaseURL: db.url)
        #expect(status.stdout.contains("photos (paused)"), "\(status.stdout)")
        let resume = try await FerryProcess.run(["queue", "resume", "photos", "--json"], databaseURL: db.url)
        #expect(try JSONValue.parse(resume.stdout)["changed"] == .bool(true))
        // A wide second worker drains the rest quickly.
        let helper = try BackgroundProcess(
            ferry: ["worker", "--queues", "photos", "--handler", "sleep:1500", "--concurrency", "100", "--poll-interval", "0.2"],
            databaseURL: db.url)
        let wait = try await FerryProcess.run(["wait", "--batch", "held", "--timeout", "120"], databaseURL: db.url)
        #expect(wait.status == 0, "\(wait.stdout)\(wait.stderr)")
        worker.signal(SIGTERM)
        helper.signal(SIGTERM)
        _ = try await worker.waitForExit()
        _ = try await helper.waitForExit()

        let history = try await db.query("SELECT type, data->>'reason' FROM ferry.queue_events WHERE queue = 'photos' ORDER BY position").rows
        #expect(try history.map { try $0.decode(String.self, at: 0) } == ["paused", "resumed"])
        #expect(try history[0].decode(String?.self, at: 1) == "maintenance")
        let refused = try await FerryProcess.run(["queue", "pause", "Bad Name"], databaseURL: db.url)
        #expect(refused.status == 65 && refused.stderr.contains("queue name"))
        #expect(try await FerryProcess.run(["projection", "verify"], databaseURL: db.url).status == 0)
    }

    @Test("pausing a queue nobody knows (no jobs, no worker, never paused) is refused as a likely typo; --create pauses it ahead of its first job")
    func unknownQueue() async throws {
        let db = try await TestDatabase.make("qpause_unknown")
        try await Self.enqueue(db, queue: "photos", count: 1, batch: "known")
        let typo = try await FerryProcess.run(["queue", "pause", "phtos"], databaseURL: db.url)
        #expect(typo.status == 66, "\(typo.stdout) \(typo.stderr)")
        #expect(typo.stderr.contains("no queue 'phtos'") && typo.stderr.contains("--create"), "\(typo.stderr)")
        let resumeTypo = try await FerryProcess.run(["queue", "resume", "phtos"], databaseURL: db.url)
        #expect(resumeTypo.status == 66, "\(resumeTypo.stderr)")
        #expect(try await count(db, "SELECT count(*) FROM ferry.queue_events") == 0, "nothing was recorded")

        let known = try await FerryProcess.run(["queue", "pause", "photos"], databaseURL: db.url)
        #expect(known.status == 0 && known.stdout.contains("paused photos"), "\(known.stderr)")
        let ahead = try await FerryProcess.run(["queue", "pause", "nightly", "--create", "--json"], databaseURL: db.url)
        #expect(ahead.status == 0 && ahead.stdout.contains(#""paused":true"#), "\(ahead.stderr)")
        // Once paused it is known: resuming needs no flag.
        #expect(try await FerryProcess.run(["queue", "resume", "nightly"], databaseURL: db.url).status == 0)
    }
}
