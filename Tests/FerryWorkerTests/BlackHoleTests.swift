import FerryTestSupport
import Foundation
import Postgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 36: faults that do not answer. PostgreSQL and a real worker run inside a network namespace of the test's
/// own; `iptables` then drops every packet to PostgreSQL's port there, so the worker's connections neither answer
/// nor reset. Without keepalives and `tcp_user_timeout` the worker would wait about 15 minutes for the kernel;
/// with Ferry's defaults (nothing in the URL) it must notice within about 30 s, and finish its jobs once healed.
/// The test reaches the server through its Unix-domain socket, which no namespace or firewall rule affects.
@Suite("a black-holed PostgreSQL", .tags(.postgres, .process), .serialized)
struct BlackHoleTests {
    /// The bound the defaults promise (`tcp_user_timeout` 30 s), plus slack for a heartbeat in flight and a busy
    /// two-core machine (a clean-clone run at load 10+ measured 54 s from the test's side). Far below the kernel's
    /// 15 minutes, which is what this guards against.
    static let noticeBound: Duration = .seconds(120)

    @Test(
        "a worker behind a black-holed PostgreSQL notices within the TCP bound, and its jobs finish once healed",
        .enabled(if: NetworkNamespace.isAvailable, "needs root, `ip netns` and `iptables` (skipped otherwise)"))
    func blackHoledDatabase() async throws {
        let namespace = try NetworkNamespace(label: "bh")
        defer { namespace.delete() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-bh-pg-\(getpid())").path
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/pg.sh").path
        defer {
            _ = NetworkNamespace.shell("/bin/bash \(NetworkNamespace.quoted(script)) stop \(NetworkNamespace.quoted(directory))")
            try? FileManager.default.removeItem(atPath: directory)
        }
        try? FileManager.default.removeItem(atPath: directory)
        // pg.sh picks its port and starts the server inside the namespace: its TCP listener is there alone.
        try await namespace.runDetached("/bin/bash \(NetworkNamespace.quoted(script)) start \(NetworkNamespace.quoted(directory)) --fast")
        let port = try #require(Int(try String(contentsOfFile: directory + "/port", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        let socketDirectory = directory.replacingOccurrences(of: "/", with: "%2F")
        let testURL = "postgresql://postgres@/postgres?host=\(socketDirectory)&port=\(port)"
        // The worker's URL sets no keepalive, user timeout or connect timeout: Ferry's defaults are under test.
        let workerURL = "postgresql://postgres@127.0.0.1:\(port)/postgres"
        let migrate = try await FerryProcess.run(["migrate"], databaseURL: testURL)
        try #require(migrate.status == 0, "\(migrate.stderr)")
        let db = TestDatabase(url: testURL, name: "postgres")

        let worker = try BackgroundProcess(
            ferry: ["worker", "--name", "black-holed", "--handler", "noop", "--heartbeat-interval", "0.3", "--rescue-after", "4",
                    "--poll-interval", "0.5", "--no-schedules"],
            databaseURL: workerURL, launcher: namespace.launcher)
        defer { worker.signal(SIGKILL) }
        for index in 0..<3 { _ = try await SQLEnqueueWorkerTests.enqueue(db, "fetch", "https://example.com/before-\(index).jpg", "/tmp/bh/") }
        try await eventually(timeout: .seconds(120), "the worker to run the first jobs") {
            try await Self.succeeded(db) == 3
        }
        let quietLog = worker.log

        try namespace.blackHole(port: port)
        let silenced = ContinuousClock.now
        for index in 0..<3 { _ = try await SQLEnqueueWorkerTests.enqueue(db, "fetch", "https://example.com/during-\(index).jpg", "/tmp/bh/") }
        try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "the worker to notice the black hole") {
            Self.noticed(String(worker.log.dropFirst(quietLog.count)))
        }
        let noticedAfter = ContinuousClock.now - silenced
        #expect(noticedAfter < Self.noticeBound, "noticed after \(noticedAfter): \(worker.log)")
        #expect(worker.isRunning, "the worker rides the outage out")
        #expect(try await Self.succeeded(db) == 3, "nothing ran while the database was unreachable")

        try namespace.heal()
        try await eventually(timeout: .seconds(120), interval: .milliseconds(200), "every job to finish once healed") {
            try await Self.succeeded(db) == 6
        }
        worker.signal(SIGTERM)
        #expect(try await worker.waitForExit(timeout: .seconds(60)) == 0, "\(worker.log)")
        #expect(!worker.log.contains("password"), "a connection's secrets never reach the log")
    }

    static func succeeded(_ db: TestDatabase) async throws -> Int {
        try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'")
    }

    /// The worker said its database went away: a heartbeat or a pooled connection failed.
    static func noticed(_ log: String) -> Bool {
        log.contains("heartbeat failed") || log.contains("PostgreSQL connection lost")
    }
}
