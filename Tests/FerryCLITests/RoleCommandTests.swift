import FerryTestSupport
import Foundation
import Postgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The CLI as deployments run it: producers, workers and dashboards each log in as a member of one group role.
@Suite("ferry as least-privilege roles", .tags(.postgres, .process))
struct RoleCommandTests {
    static func state(_ db: TestDatabase, _ job: String) async throws -> String {
        try await db.query("SELECT state FROM ferry.jobs WHERE job_id = $1::uuid", [job]).rows[0].decode(String.self, at: 0)
    }

    @Test("a producer enqueues, cancels and retries, a worker runs the jobs, a reader reads status; none can do the others' part")
    func commandsPerRole() async throws {
        let db = try await TestDatabase.make("cliroles")
        let suffix = UInt32.random(in: 0...UInt32.max)
        var urls = [String: String]()
        for group in ["producer", "worker", "reader"] {
            let name = "cli_\(group)_\(suffix)"
            try await db.query("CREATE ROLE \(name) LOGIN IN ROLE ferry_\(group)")
            urls[group] = db.url.replacingOccurrences(of: "postgres@", with: "\(name)@")
        }
        let (producer, worker, reader) = (urls["producer"]!, urls["worker"]!, urls["reader"]!)

        // Producer: enqueue into three queues.
        let lines = ["good", "good", "bad", "slow", "idle"].enumerated().map { index, queue in
            #"{"kind":"fetch","source":"https://example.com/roles/\#(index).jpg","to":"/srv/","batch":"roles","queue":"\#(queue)","max_attempts":1}"#
        }
        let enqueue = try await FerryProcess.run(["enqueue", "--from", "-"], databaseURL: producer, stdin: lines.joined(separator: "\n"))
        #expect(enqueue.status == 0, "\(enqueue.stderr)")
        let ids = enqueue.lines
        #expect(ids.count == 5)
        let (bad, slow, idle) = (ids[2], ids[3], ids[4])

        // Neither a reader nor a worker can cancel; the producer can (a queued job: cancelled at once).
        for (url, words) in [(reader, ["permission denied for table"]),
                             (worker, ["\"cancelled\"", "cli_worker_\(suffix)", "needs ferry_producer"])] {
            let refused = try await FerryProcess.run(["cancel", idle], databaseURL: url)
            #expect(refused.status == 77, "\(refused.stderr)")
            for word in words + ["42501"] { #expect(refused.stderr.contains(word), "\(refused.stderr)") }
            #expect(!refused.stderr.contains("Fatal error"))
        }
        #expect(try await Self.state(db, idle) == "queued")
        let cancelIdle = try await FerryProcess.run(["cancel", idle], databaseURL: producer)
        #expect(cancelIdle.status == 0, "\(cancelIdle.stderr)")
        #expect(try await Self.state(db, idle) == "cancelled")

        // Workers log in as ferry_worker.
        func start(_ queue: String, _ handler: String) throws -> BackgroundProcess {
            try BackgroundProcess(
                ferry: ["worker", "--queues", queue, "--handler", handler, "--heartbeat-interval", "0.3", "--poll-interval", "0.5"],
                databaseURL: worker)
        }
        let workers = [try start("good", "noop"), try start("bad", "fail"), try start("slow", "sleep:60000")]
        try await eventually(timeout: .seconds(300), "the good jobs succeed and the bad one fails") {
            let states = try await db.query("SELECT state, count(*) FROM ferry.jobs WHERE batch = 'roles' GROUP BY state ORDER BY 1").rows
                .map { "\(try $0.decode(String.self, at: 0))=\(try $0.decode(Int.self, at: 1))" }
            return states == ["cancelled=1", "failed=1", "running=1", "succeeded=2"]
        }

        // The producer asks to cancel the running job; the worker holding it ends it.
        let cancelSlow = try await FerryProcess.run(["cancel", slow], databaseURL: producer)
        #expect(cancelSlow.status == 0, "\(cancelSlow.stderr)")
        try await eventually(timeout: .seconds(300), "the worker cancels the running job") {
            try await Self.state(db, slow) == "cancelled"
        }
        let kinds = try await db.query("SELECT type FROM ferry.events WHERE job_id = $1::uuid AND type <> 'progress' ORDER BY version", [slow]).rows
            .map { try $0.decode(String.self, at: 0) }
        #expect(kinds == ["enqueued", "claimed", "cancel_requested", "cancelled"])

        // The producer retries the failed job; the worker runs (and fails) it again.
        let retry = try await FerryProcess.run(["retry", bad], databaseURL: producer)
        #expect(retry.status == 0, "\(retry.stderr)")
        try await eventually(timeout: .seconds(300), "the retried job runs again") {
            try await db.query("SELECT count(*) FROM ferry.events WHERE job_id = $1::uuid AND type = 'failed'", [bad]).rows[0]
                .decode(Int.self, at: 0) == 2
        }

        // Status: the reader reads the views; the job history (ferry.events) is not its to read.
        for arguments in [["status"], ["status", "--batch", "roles"], ["status", ids[0]]] {
            let status = try await FerryProcess.run(arguments, databaseURL: reader)
            #expect(status.status == 0, "\(arguments): \(status.stderr)")
        }
        let wait = try await FerryProcess.run(["wait", "--batch", "roles", "--timeout", "10"], databaseURL: producer)
        #expect(wait.status == 1 && wait.stdout.contains("2 of 5 job(s) succeeded"), "\(wait.stdout) \(wait.stderr)")
        let events = try await FerryProcess.run(["events", ids[0]], databaseURL: reader)
        // A job's timeline is a status view (ferry.job_timeline): readers see it, not the event table itself.
        #expect(events.status == 0 && events.stdout.contains("enqueued"), "\(events.stdout) \(events.stderr)")

        for process in workers { process.signal(SIGTERM) }
        for process in workers { #expect(try await process.waitForExit() == 0, "\(process.log)") }
        let differences = try await db.query("SELECT count(*) FROM ferry.projection_differences(10)").rows[0].decode(Int.self, at: 0)
        #expect(differences == 0)
    }

    @Test("a producer-only login lists and shows accounts (whether secrets are set, never their values)")
    func producerListsAccounts() async throws {
        let db = try await TestDatabase.make("cliaccounts")
        let name = "cli_acct_producer_\(UInt32.random(in: 0...UInt32.max))"
        try await db.query("CREATE ROLE \(name) LOGIN IN ROLE ferry_producer")
        let producer = db.url.replacingOccurrences(of: "postgres@", with: "\(name)@")
        try await db.query(
            "INSERT INTO ferry.accounts (name, provider, app_key, refresh_token_sealed) VALUES ('box', 'dropbox', 'key-1', '\\x00ff'::bytea)")
        let list = try await FerryProcess.run(["account", "list", "--json"], databaseURL: producer)
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout.contains("\"box\"") && list.stdout.contains("dropbox"), "\(list.stdout)")
        // Whether each secret is set, from the rows the producer may read.
        #expect(list.stdout.contains(#""has_refresh_token":true"#) && list.stdout.contains(#""has_secrets":false"#), "\(list.stdout)")
        let show = try await FerryProcess.run(["account", "show", "box"], databaseURL: producer)
        #expect(show.status == 0, "\(show.stderr)")
        let lines = show.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("refresh token") && $0.hasSuffix("stored (encrypted)") }, "\(show.stdout)")
        #expect(lines.contains { $0.hasPrefix("app secret") && $0.hasSuffix("none") }, "\(show.stdout)")
        #expect(lines.contains { $0.hasPrefix("app key") && $0.hasSuffix("key-1") }, "\(show.stdout)")
        // Never the sealed value itself, in any form.
        for output in [list.stdout, show.stdout] {
            #expect(!output.contains("00ff") && !output.contains("\\x") && !output.contains("refresh_token_sealed"), "\(output)")
        }
    }
}
