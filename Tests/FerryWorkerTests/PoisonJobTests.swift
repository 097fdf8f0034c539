import FerryCore
import FerryTestSupport
import Foundation
import Postgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A job must never take the fleet down (issue 30): real worker processes that die on a job, restarted as a
/// supervisor would, and the job ends as poison after the third death while the others flow. A process boundary
/// (SIGKILL mid-job), so these run as processes.
@Suite("poison jobs and schedules in real workers", .tags(.postgres, .process), .serialized)
struct PoisonJobTests {
    @Test("a job that kills its worker three times ends failed as poison, naming its claimers; the other jobs all succeed")
    func poisonJob() async throws {
        let db = try await TestDatabase.make("poison_job")
        let deadly = try await SQLEnqueueWorkerTests.enqueue(db, "fetch", "https://example.com/deadly.jpg", "/tmp/poison/", #"{"priority": 9, "max_attempts": 20}"#)
        var others = [UUID]()
        for index in 0..<6 {
            others.append(try await SQLEnqueueWorkerTests.enqueue(db, "fetch", "https://example.com/fine-\(index).jpg", "/tmp/poison/"))
        }
        // A supervisor starts a worker again each time one dies: three generations die on the deadly job (it sorts
        // first; each finds the previous one's dead claim and rescues it after a second). One job at a time: jobs
        // held by a worker when it dies are all rescued, and the count cannot tell the culprit from its company
        // (docs/operations.md, Poison jobs).
        for generation in 1...3 {
            let worker = try TestWorker.start(
                db, name: "mortal-\(generation)", ["--handler", "crash-if:deadly", "--rescue-after", "1", "--poison-after", "3", "--concurrency", "1"])
            let status = try await worker.waitForExit(timeout: .seconds(120))
            #expect(status == SIGKILL, "generation \(generation) ended with \(status): \(worker.log)")
        }
        // The fourth fails it as poison instead of claiming it, and lives to serve the rest.
        let survivor = try TestWorker.start(
            db, name: "survivor", ["--handler", "crash-if:deadly", "--rescue-after", "1", "--poison-after", "3"])
        try await eventually(timeout: .seconds(120), "the deadly job to fail and the others to succeed") {
            let states = try await db.query("SELECT state, count(*) FROM ferry.jobs GROUP BY state ORDER BY state").rows
                .map { "\(try $0.decode(String.self, at: 0))=\(try $0.decode(Int.self, at: 1))" }
            return states == ["failed=1", "succeeded=\(others.count)"]
        }
        #expect(survivor.isRunning)
        #expect(survivor.log.contains("job failed as poison"), "\(survivor.log)")
        survivor.signal(SIGTERM)
        _ = try await survivor.waitForExit()
        let row = try await db.query("SELECT last_error, attempt FROM ferry.jobs WHERE job_id = $1", [deadly]).rows[0]
        let error = try row.decode(String.self, at: 0)
        #expect(error.hasPrefix("poison:") && error.contains("3 times"), "\(error)")
        let failed = try await db.query(
            "SELECT data::text FROM ferry.events WHERE job_id = $1 AND type = 'failed'", [deadly]).rows[0].decode(String.self, at: 0)
        let data = try JSONValue.parse(failed)
        #expect(data["reason"]?.stringValue == "poison")
        #expect(data["claimers"]?.arrayValue?.compactMap(\.stringValue) == ["mortal-3", "mortal-2", "mortal-1"])
    }

    @Test("a schedule whose firing kills three workers is paused with its reason by the fourth, which lives; resumed, it fires again")
    func poisonSchedule() async throws {
        let db = try await TestDatabase.make("poison_schedule")
        let shortTicks = ["FERRY_SCHEDULE_MIN_INTERVAL": "1"]
        let add = try await FerryProcess.run(
            ["schedule", "add", "deadly", "--every", "1s", "--overlap", "allow", "--", "fetch", "https://example.com/d.jpg", "--to", "/srv/d/"],
            databaseURL: db.url, environment: shortTicks)
        #expect(add.status == 0, "\(add.stderr)")
        for generation in 1...3 {
            let doomed = try BackgroundProcess(
                ferry: ["worker", "--name", "doomed-\(generation)", "--handler", "noop", "--schedule-interval", "0.2"], databaseURL: db.url,
                environment: ["FERRY_SCHEDULE_CRASH_AT": "enqueued"])
            #expect(try await doomed.waitForExit(timeout: .seconds(120)) == SIGKILL, "\(doomed.log)")
        }
        let survivor = try BackgroundProcess(
            ferry: ["worker", "--name", "survivor", "--handler", "noop", "--schedule-interval", "0.2"], databaseURL: db.url)
        defer { if survivor.isRunning { survivor.signal(SIGKILL) } }
        try await eventually(timeout: .seconds(120), "the schedule paused") {
            try await db.query("SELECT paused FROM ferry.schedules WHERE name = 'deadly'").rows[0].decode(Bool.self, at: 0)
        }
        let reason = try await db.query("SELECT paused_reason FROM ferry.schedule_status WHERE name = 'deadly'").rows[0].decode(String.self, at: 0)
        #expect(reason.contains("3 firings ended with their worker dead") && reason.contains("doomed-1"), "\(reason)")
        #expect(try await db.query("SELECT count(*) FROM ferry.schedule_ticks").rows[0].decode(Int.self, at: 0) == 0)
        let show = try await FerryProcess.run(["schedule", "show", "deadly"], databaseURL: db.url)
        #expect(show.stdout.contains("paused    paused by worker survivor"), "\(show.stdout)")
        #expect(survivor.isRunning)
        // Resumed (the cause gone: this worker does not crash), the count starts afresh and it fires.
        #expect(try await FerryProcess.run(["schedule", "resume", "deadly"], databaseURL: db.url).status == 0)
        try await eventually(timeout: .seconds(120), "a tick after the resume") {
            try await db.query("SELECT count(*) FROM ferry.schedule_ticks WHERE job_id IS NOT NULL").rows[0].decode(Int.self, at: 0) >= 1
        }
        survivor.signal(SIGTERM)
        #expect(try await survivor.waitForExit() == 0)
    }
}
