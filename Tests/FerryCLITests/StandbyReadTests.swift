import AsyncHTTPClient
import FerryTestSupport
import Foundation
import Postgres
import Testing

/// Reads from a streaming hot standby (scripts/pg.sh standby): jobs run on a private primary, and `ferry status`,
/// `ferry events`, `ferry wait`, a read-only dashboard and the status views as `ferry_reader` read the standby.
/// Their `--database-url` leads nowhere, so nothing they show can have come from the primary.
@Suite("reading from a hot standby", .tags(.postgres, .process))
struct StandbyReadTests {
    /// Where nothing listens: the primary's URL of the read commands, which must not need it.
    static let nowhere = TestDatabase(url: "postgresql://postgres@127.0.0.1:1/postgres", name: "postgres")
    /// What `ferry wait` says once when the standby refuses LISTEN.
    static let waitNotice = "LISTEN refused, SQLSTATE 25006"
    /// What the dashboard logs once for the same reason.
    static let dashboardNotice = "the database is a hot standby"

    static func count(_ url: String, _ sql: String) async throws -> Int {
        let client = PostgresClient(configuration: PostgresConfiguration(connectionString: url, poolSize: 1))
        defer { client.close() }
        return try await client.withConnection { try $0.query(sql).rows[0].decode(Int.self, at: 0) }
    }

    static func occurrences(of text: String, in log: String) -> Int {
        log.components(separatedBy: text).count - 1
    }

    static func seconds(_ duration: Duration) -> String {
        let (whole, fraction) = duration.components
        return String(format: "%.2f s", Double(whole) + Double(fraction) / 1e18)
    }

    @Test("status, events, wait --batch (polling, said once), the read-only dashboard and the views as ferry_reader on a standby")
    func readsOnStandby() async throws {
        try await PrivateCluster.withNew { primary in
            let db = try await primary.migratedDatabase()
            try await db.query("CREATE ROLE standby_reader LOGIN IN ROLE ferry_reader")
            let jobs = 40
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-standby-\(UUID().uuidString).jsonl").path
            defer { try? FileManager.default.removeItem(atPath: file) }
            try (0..<jobs).map { #"{"kind":"fetch","source":"https://example.com/replica/\#($0).jpg","to":"/srv/replica/","batch":"replica"}"# }
                .joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
            let enqueue = try await FerryProcess.run(["enqueue", "--from", file], databaseURL: db.url)
            #expect(enqueue.status == 0, "\(enqueue.stderr)")
            let ids = enqueue.lines

            try await StandbyCluster.withNew(primaryURL: primary.adminURL) { standby in
                let admin = standby.url(database: "postgres")
                let reader = standby.url(database: "postgres", user: "standby_reader")
                #expect(try await Self.count(admin, "SELECT pg_is_in_recovery()::int") == 1, "a standby")
                #expect(try await Self.count(admin, "SELECT count(*) FROM ferry.jobs WHERE batch = 'replica'") == jobs, "cloned after the enqueue")

                // Waiting on the standby before any job runs: it must poll, and say so once.
                let wait = try BackgroundProcess(
                    ferry: ["wait", "--batch", "replica", "--json", "--interval", "0.5", "--read-database-url", admin],
                    databaseURL: Self.nowhere.url)
                try await eventually(timeout: .seconds(120), "ferry wait's polling notice") {
                    if !wait.isRunning { throw TestSupportError("ferry wait exited early: \(wait.log)") }
                    return wait.log.contains(Self.waitNotice)
                }
                // The same wait on the primary, woken by the batch's notification: the figure to compare with.
                let primaryWait = try BackgroundProcess(
                    ferry: ["wait", "--batch", "replica", "--json", "--interval", "0.5"], databaseURL: db.url)
                let worker = try TestWorker.start(db, name: "standby-primary-worker", ["--handler", "noop", "--concurrency", "8"])
                defer { worker.signal(SIGTERM) }
                // When the primary has finished the batch, and when each waiter noticed; the primary's view of the
                // standby's replay lag meanwhile (pg_stat_replication).
                var replayLag = 0
                try await eventually(timeout: .seconds(300), interval: .milliseconds(20), "the batch to finish on the primary") {
                    replayLag = max(replayLag, try await Self.count(
                        db.url, "SELECT coalesce(max(extract(epoch FROM replay_lag) * 1000), 0)::int FROM pg_stat_replication"))
                    return try await Self.count(db.url, "SELECT count(*) FROM ferry.jobs WHERE batch = 'replica' AND state = 'succeeded'") == jobs
                }
                let finishedOnPrimary = ContinuousClock.now
                #expect(try await primaryWait.waitForExit(timeout: .seconds(120)) == 0, "\(primaryWait.log)")
                let primaryWaitReturned = ContinuousClock.now
                #expect(!primaryWait.log.contains(Self.waitNotice), "the primary hears LISTEN: \(primaryWait.log)")
                #expect(try await wait.waitForExit(timeout: .seconds(120)) == 0, "\(wait.log)")
                let waitReturned = ContinuousClock.now
                let outcome = wait.log.split(separator: "\n").compactMap {
                    (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
                }.first
                #expect(outcome?["succeeded"] as? Int == jobs, "\(wait.log)")
                #expect(Self.occurrences(of: Self.waitNotice, in: wait.log) == 1, "said once: \(wait.log)")
                // Figures for the documentation, not assertions: the machine is shared and its pace varies.
                print("standby figures: after the batch finished on the primary, ferry wait returned on the primary in \(Self.seconds(primaryWaitReturned - finishedOnPrimary)) and on the standby in \(Self.seconds(waitReturned - finishedOnPrimary)) (--interval 0.5 s); largest replay_lag in pg_stat_replication while the jobs ran: \(replayLag) ms")

                // ferry status as ferry_reader: the batch as the primary has it, and the standby's state.
                let status = try await FerryProcess.run(
                    ["status", "--batch", "replica", "--json", "--read-database-url", reader], databaseURL: Self.nowhere.url)
                #expect(status.status == 0, "\(status.stderr)")
                let summary = try #require((try? JSONSerialization.jsonObject(with: Data(status.stdout.utf8))) as? [String: Any], "\(status.stdout)")
                #expect((summary["batch"] as? [String: Any])?["succeeded"] as? Int == jobs, "\(status.stdout.prefix(500))")
                #expect((summary["jobs"] as? [Any])?.count == jobs)
                let state = try #require(summary["standby"] as? [String: Any], "\(status.stdout.prefix(300))")
                #expect(state["replay_lag_seconds"] is Double && state["caught_up"] is Bool, "\(state)")
                let overview = try await FerryProcess.run(["status", "--read-database-url", reader], databaseURL: Self.nowhere.url)
                #expect(overview.status == 0, "\(overview.stderr)")
                #expect(overview.lines.first?.hasPrefix("hot standby: ") == true, "\(overview.stdout)")

                // ferry events as ferry_reader through FERRY_READ_DATABASE_URL: the history the primary recorded.
                let events = try await FerryProcess.run(
                    ["events", ids[0], "--json"], databaseURL: Self.nowhere.url, environment: ["FERRY_READ_DATABASE_URL": reader])
                #expect(events.status == 0, "\(events.stderr)")
                let types = ((try? JSONSerialization.jsonObject(with: Data(events.stdout.utf8))) as? [[String: Any]] ?? []).compactMap { $0["type"] as? String }
                let recorded = try await db.query("SELECT type FROM ferry.events WHERE job_id = $1::uuid ORDER BY version", [try #require(UUID(uuidString: ids[0]))])
                    .rows.map { try $0.decode(String.self, at: 0) }
                #expect(types == recorded && types.last == "succeeded", "\(events.stdout.prefix(500))")

                // The status views as ferry_reader on the standby.
                for view in ["job_status", "batch_status", "queue_stats", "job_timeline", "worker_status", "account_status", "throughput", "schedule_status", "schedule_runs"] {
                    _ = try await Self.count(reader, "SELECT count(*) FROM ferry.\(view)")
                }
                #expect(try await Self.count(reader, "SELECT succeeded::int FROM ferry.batch_status WHERE batch = 'replica'") == jobs)
                #expect(try await Self.count(reader, "SELECT count(*) FROM ferry.job_timeline WHERE type = 'succeeded'") == jobs)

                // A read-only dashboard entirely on the standby, as ferry_reader: pages, and live changes without LISTEN.
                try await DashboardProbe.with(Self.nowhere, ["--read-only", "--read-database-url", reader]) { dashboard in
                    let page = try await dashboard.get("/", json: true)
                    #expect(page.status == 200, "\(page.body.prefix(300))")
                    let object = page.json as? [String: Any]
                    let queues = object?["queues"] as? [[String: Any]] ?? []
                    let succeeded = queues.filter { $0["state"] as? String == "succeeded" }.compactMap { $0["jobs"] as? Int }.reduce(0, +)
                    #expect(succeeded == jobs, "\(page.body.prefix(500))")
                    #expect(object?["standby"] is [String: Any], "\(page.body.prefix(500))")
                    #expect(try await dashboard.get("/").body.contains("id=\"standby-note\""))
                    for path in ["/batches", "/batches/replica", "/jobs/\(ids[0])", "/workers", "/failed", "/queues"] {
                        let answer = try await dashboard.get(path, json: true)
                        #expect(answer.status == 200, "\(path): \(answer.status) \(answer.body.prefix(300))")
                    }
                    try await eventually(timeout: .seconds(120), "the dashboard's standby notice") {
                        dashboard.process.log.contains(Self.dashboardNotice)
                    }
                    // A job enqueued on the primary reaches the open event stream through the standby's event head.
                    let root = dashboard.root
                    let http = dashboard.http
                    let received = try await withThrowingTaskGroup(of: String.self) { group in
                        group.addTask {
                            // A guard against a hang, not a speed check.
                            try await Task.sleep(for: .seconds(300))
                            throw TestSupportError("no change event within 300 s")
                        }
                        group.addTask {
                            var request = HTTPClientRequest(url: root + "/events")
                            request.headers.add(name: "Accept", value: "text/event-stream")
                            let response = try await http.execute(request, timeout: .seconds(300))
                            var received = ""
                            var iterator = response.body.makeAsyncIterator()
                            // The opening comment: subscribed before the change.
                            while !received.contains("\n\n"), let chunk = try await iterator.next() { received += String(buffer: chunk) }
                            let more = try await FerryProcess.run(
                                ["enqueue", "fetch", "https://example.com/replica/late.jpg", "--to", "/srv/replica/", "--batch", "late"],
                                databaseURL: db.url)
                            #expect(more.status == 0, "\(more.stderr)")
                            while !received.contains(#""channel":"events""#), let chunk = try await iterator.next() {
                                received += String(buffer: chunk)
                            }
                            return received
                        }
                        let first = try await group.next()!
                        group.cancelAll()
                        return first
                    }
                    #expect(received.contains(#""channel":"events""#))
                    #expect(Self.occurrences(of: Self.dashboardNotice, in: dashboard.process.log) == 1, "said once: \(dashboard.process.log)")
                    #expect(!dashboard.process.log.contains("lost its connection"), "\(dashboard.process.log)")
                }
                worker.signal(SIGTERM)
                #expect(try await worker.waitForExit() == 0, "\(worker.log)")
            }
        }
    }

    @Test("a dashboard with actions refuses a read URL, naming where it came from")
    func actionsRefuseReadURL() async throws {
        let token = ["FERRY_DASHBOARD_TOKEN": String(repeating: "k", count: 32)]
        let option = try await FerryProcess.run(
            ["dashboard", "--read-database-url", Self.nowhere.url], databaseURL: Self.nowhere.url, environment: token)
        #expect(option.status == 64, "\(option.stderr)")
        #expect(option.stderr.contains("--read-database-url is for a --read-only dashboard"), "\(option.stderr)")
        let variable = try await FerryProcess.run(
            ["dashboard"], databaseURL: Self.nowhere.url, environment: token.merging(["FERRY_READ_DATABASE_URL": Self.nowhere.url]) { $1 })
        #expect(variable.status == 64, "\(variable.stderr)")
        #expect(variable.stderr.contains("FERRY_READ_DATABASE_URL is for a --read-only dashboard"), "\(variable.stderr)")
    }
}
