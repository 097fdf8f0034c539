import FerryTestSupport
import Foundation
import Postgres
import Synchronization
import Testing

/// `--wait-for-database`: one-shot commands ride out PostgreSQL being down or read-only, as during a failover.
@Suite("riding out a failover", .tags(.postgres, .process), .serialized)
struct WaitForDatabaseTests {
    static func jobsFile(batch: String, count: Int) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-wfd-\(UUID().uuidString).jsonl").path
        let lines = (0..<count).map { #"{"kind":"fetch","source":"https://example.com/\#(batch)/\#($0).jpg","to":"/srv/\#(batch)/","batch":"\#(batch)"}"# }
        try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func count(_ db: TestDatabase, batch: String) async throws -> Int {
        try await db.query("SELECT count(*) FROM ferry.jobs WHERE batch = $1", [batch]).rows[0].decode(Int.self, at: 0)
    }

    @Test("PostgreSQL down: enqueue waits with --wait-for-database and succeeds once, without it exits 69 at once, with a short deadline after it")
    func serverDown() async throws {
        try await PrivateCluster.withNew { cluster in
            let db = try await cluster.migratedDatabase()
            let file = try Self.jobsFile(batch: "down", count: 3)
            defer { try? FileManager.default.removeItem(atPath: file) }
            try await cluster.stopServer()

            let started = ContinuousClock.now
            let refused = try await FerryProcess.run(["enqueue", "--from", file], databaseURL: db.url)
            #expect(refused.status == 69, "\(refused.stderr)")
            #expect(refused.stderr.contains("PostgreSQL is unavailable"), "\(refused.stderr)")
            // No flag, no waiting: it never says it waits, and it is done long before any wait would end (a loaded
            // machine took 23 s to start the process and be refused, so the bound is generous).
            #expect(!refused.stderr.contains("waiting for PostgreSQL"), "\(refused.stderr)")
            #expect(ContinuousClock.now - started < .seconds(90), "no flag: no waiting")

            let shortStart = ContinuousClock.now
            let short = try await FerryProcess.run(["enqueue", "--from", file, "--wait-for-database", "2s"], databaseURL: db.url)
            let shortTook = ContinuousClock.now - shortStart
            #expect(short.status == 69, "\(short.stderr)")
            #expect(short.stderr.contains("waiting for PostgreSQL"), "\(short.stderr)")
            #expect(short.stderr.contains("PostgreSQL is unavailable"), "\(short.stderr)")
            // The lower bound shows the wait; the upper one only that it ends (a clean-clone run at load far above
            // 2 cores took 95 s to start, wait and give up; an attempt's connect may also take connect_timeout).
            #expect(shortTook >= .seconds(2) && shortTook < .seconds(180), "gave up after \(shortTook)")

            // The environment variable works as the option does.
            let waiting = try BackgroundProcess(
                ferry: ["enqueue", "--from", file], databaseURL: db.url, environment: ["FERRY_WAIT_FOR_DATABASE": "60s"])
            try await eventually(timeout: .seconds(120), "the enqueue to say it waits") { waiting.log.contains("waiting for PostgreSQL") }
            try await Task.sleep(for: .seconds(2))
            #expect(waiting.isRunning, "still waiting while the server is down: \(waiting.log)")
            try await cluster.startServer()
            #expect(try await waiting.waitForExit(timeout: .seconds(90)) == 0, "\(waiting.log)")
            let ids = waiting.log.split(separator: "\n").filter { UUID(uuidString: String($0)) != nil }
            #expect(ids.count == 3, "\(waiting.log)")
            #expect(try await Self.count(db, batch: "down") == 3)
            // The reading and the other writing commands wait the same way.
            try await cluster.stopServer()
            let readers = try [
                ["status", "--batch", "down", "--json"], ["events", String(ids[0])], ["wait", String(ids[0]), "--timeout", "1"],
                ["cancel", "--batch", "down"],
            ].map { try BackgroundProcess(ferry: $0 + ["--wait-for-database", "60s"], databaseURL: db.url) }
            for reader in readers {
                try await eventually(timeout: .seconds(120), "\(reader.pid) to say it waits") { reader.log.contains("waiting for PostgreSQL") }
            }
            try await cluster.startServer()
            var statuses = [Int32]()
            for reader in readers { statuses.append(try await reader.waitForExit(timeout: .seconds(90))) }
            // ferry wait JOB read the state: the job still queued at its --timeout 1 (75), or cancelled meanwhile (1).
            #expect(statuses[0] == 0 && statuses[1] == 0 && [75, 1].contains(statuses[2]) && statuses[3] == 0, "\(readers.map(\.log))")
            #expect(readers[0].log.contains("\"batch\""), "\(readers[0].log)")
            #expect(try await db.query("SELECT count(*) FROM ferry.jobs WHERE batch = 'down' AND state = 'cancelled'").rows[0].decode(Int.self, at: 0) == 3)
        }
    }

    @Test("a read-only server (25006, as a demoted primary): exit 69 without waiting; with --wait-for-database the enqueue lands once it is writable")
    func readOnly() async throws {
        let db = try await TestDatabase.make("readonly")
        let admin = try PostgresClient(configuration: PostgresConfiguration(connectionString: TestDatabase.adminURL, poolSize: 1))
        defer { admin.close() }
        let name = PostgresIdentifier(db.name).quoted
        try await admin.withConnection { try $0.execute("ALTER DATABASE \(name) SET default_transaction_read_only = on") }
        let file = try Self.jobsFile(batch: "ro", count: 2)
        defer { try? FileManager.default.removeItem(atPath: file) }

        let refused = try await FerryProcess.run(["enqueue", "--from", file], databaseURL: db.url)
        #expect(refused.status == 69, "\(refused.stderr)")
        #expect(refused.stderr.contains("SQLSTATE 25006"), "\(refused.stderr)")

        let waiting = try BackgroundProcess(ferry: ["enqueue", "--from", file, "--wait-for-database", "60s"], databaseURL: db.url)
        try await eventually(timeout: .seconds(120), "the enqueue to say it waits") { waiting.log.contains("waiting for PostgreSQL") }
        try await Task.sleep(for: .seconds(1))
        #expect(try await Self.count(db, batch: "ro") == 0)
        try await admin.withConnection { try $0.execute("ALTER DATABASE \(name) RESET default_transaction_read_only") }
        #expect(try await waiting.waitForExit(timeout: .seconds(90)) == 0, "\(waiting.log)")
        #expect(try await Self.count(db, batch: "ro") == 2)
    }

    @Test("--wait-for-database gives jobs without a key one of the invocation, so a retried attempt creates no duplicates")
    func invocationKeys() async throws {
        let db = try await TestDatabase.make("wfdkeys")
        let file = try Self.jobsFile(batch: "keys", count: 2)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let result = try await FerryProcess.run(["enqueue", "--from", file, "--json", "--wait-for-database", "5s"], databaseURL: db.url)
        #expect(result.status == 0, "\(result.stderr)")
        let rows = try await db.query("SELECT data->>'key' FROM ferry.events WHERE type = 'enqueued' ORDER BY job_id")
        let found = rows.rows.compactMap { try? $0.decode(String.self, at: 0) }
        #expect(found.count == 2 && found.allSatisfy { $0.hasPrefix("ferry-cli:") }, "\(found)")
        #expect(Set(found.map { $0.split(separator: ":").dropLast().joined(separator: ":") }).count == 1, "one base per invocation: \(found)")
        let bad = try await FerryProcess.run(["enqueue", "--from", file, "--wait-for-database", "soon"], databaseURL: db.url)
        #expect(bad.status == 64, "\(bad.stderr)")
    }

    @Test("a connection killed in the middle of an enqueue (57P01): the attempt is replayed from the file and every job exists once")
    func killedMidway() async throws {
        let db = try await TestDatabase.make("wfdkill")
        let file = try Self.jobsFile(batch: "kill", count: 500)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let admin = PostgresClient(configuration: PostgresConfiguration(connectionString: db.url, poolSize: 2))
        defer { admin.close() }
        // Hold the enqueue at its first write, so that it is surely in the middle when its connection is killed.
        let locked = Mutex(false)
        let (release, releaser) = AsyncStream.makeStream(of: Void.self)
        let holder = Task {
            try await admin.withHeldTransaction { held in
                try await held.run { try $0.execute("LOCK TABLE ferry.events IN EXCLUSIVE MODE") }
                locked.withLock { $0 = true }
                for await _ in release { break }
            }
        }
        try await eventually(timeout: .seconds(300), "the lock") { locked.withLock { $0 } }
        let enqueue = try BackgroundProcess(ferry: ["enqueue", "--from", file, "--wait-for-database", "60s"], databaseURL: db.url)
        let victim = Mutex<Int32>(0)
        try await eventually(timeout: .seconds(300), "the enqueue to wait for the lock") {
            let rows = try await admin.withConnection {
                try $0.query(
                    "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND application_name = 'ferry'")
            }
            let pid = try rows.rows.first?.decode(Int32.self, at: 0) ?? 0
            victim.withLock { $0 = pid }
            return pid != 0
        }
        let pid = victim.withLock { $0 }
        _ = try await admin.withConnection { try $0.query("SELECT pg_terminate_backend($1)", [pid]) }
        releaser.yield()
        releaser.finish()
        try await holder.value
        #expect(try await enqueue.waitForExit(timeout: .seconds(90)) == 0, "\(enqueue.log)")
        #expect(enqueue.log.contains("waiting for PostgreSQL"), "the first attempt failed and was retried: \(enqueue.log)")
        #expect(try await Self.count(db, batch: "kill") == 500)
        let distinct = try await db.query("SELECT count(DISTINCT source) FROM ferry.jobs WHERE batch = 'kill'")
        #expect(try distinct.rows[0].decode(Int.self, at: 0) == 500)
    }

    @Test("a host that accepts and never answers, with connect_timeout=600 in the URL: a 3 s wait still ends near its deadline, exit 69")
    func silentHost() async throws {
        let file = try Self.jobsFile(batch: "silent", count: 1)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let listener = try CompletionTests.SilentListener()
        defer { listener.close() }
        let started = ContinuousClock.now
        let result = try await FerryProcess.run(
            ["enqueue", "--from", file, "--wait-for-database", "3s"],
            databaseURL: "postgresql://postgres@127.0.0.1:\(listener.port)/ferry?connect_timeout=600")
        let took = ContinuousClock.now - started
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.contains("gave up waiting for PostgreSQL after 3s"), "\(result.stderr)")
        // Without the cut the first attempt alone would wait the URL's 600 s; the bound is only a hang guard.
        #expect(took >= .seconds(3) && took < .seconds(300), "gave up after \(took)")
    }

    @Test("a refused password is said at once (exit 77, 'refused the login'), not waited for as PostgreSQL being away: by an enqueue with --wait-for-database and by a worker with --wait-for-schema")
    func refusedPassword() async throws {
        try await PrivateCluster.withNew { cluster in
            let db = try await cluster.migratedDatabase()
            let role = "pw_\(UInt32.random(in: 0...UInt32.max))"
            try await db.query("CREATE ROLE \(role) LOGIN PASSWORD 'right-one' IN ROLE ferry_producer, ferry_worker")
            // Only this role logs in with a password; every other login keeps the cluster's trust.
            let hba = cluster.directory + "/data/pg_hba.conf"
            let rules = try String(contentsOfFile: hba, encoding: .utf8)
            try ("host all \(role) 127.0.0.1/32 scram-sha-256\nhost all \(role) ::1/128 scram-sha-256\n" + rules)
                .write(toFile: hba, atomically: true, encoding: .utf8)
            try await db.query("SELECT pg_reload_conf()")
            let wrong = db.url.replacingOccurrences(of: "postgres@", with: "\(role):wrong-one@")
            let right = db.url.replacingOccurrences(of: "postgres@", with: "\(role):right-one@")
            try await eventually(timeout: .seconds(60), "the server to ask this role for its password") {
                try await FerryProcess.run(["status"], databaseURL: wrong).status != 0
            }

            let started = ContinuousClock.now
            let enqueue = try await FerryProcess.run(
                ["enqueue", "fetch", "https://example.com/a.jpg", "--to", "/srv/in/", "--wait-for-database", "60s"], databaseURL: wrong)
            #expect(enqueue.status == 77, "\(enqueue.stderr)")
            #expect(enqueue.stderr.contains("PostgreSQL refused the login") && enqueue.stderr.contains("check the password"), "\(enqueue.stderr)")
            #expect(!enqueue.stderr.contains("waiting for PostgreSQL") && !enqueue.stderr.contains("wrong-one"), "\(enqueue.stderr)")
            let worker = try await FerryProcess.run(["worker", "--handler", "noop", "--wait-for-schema", "60s"], databaseURL: wrong)
            #expect(worker.status == 77, "\(worker.stderr)")
            #expect(worker.stderr.contains("PostgreSQL refused the login") && !worker.stderr.contains("waiting for PostgreSQL"), "\(worker.stderr)")
            #expect(ContinuousClock.now - started < .seconds(50), "neither waited for its 60 s")

            let fine = try await FerryProcess.run(["enqueue", "fetch", "https://example.com/a.jpg", "--to", "/srv/in/"], databaseURL: right)
            #expect(fine.status == 0, "\(fine.stderr)")
        }
    }
}
