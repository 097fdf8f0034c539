import FerryCore
import FerryTestSupport
import Foundation
import Postgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 36: a worker cut off from PostgreSQL but not from Dropbox, for longer than its lease, does not commit.
/// PostgreSQL, the dev server and two workers run inside a network namespace of the test's own. The first worker
/// reaches PostgreSQL over TCP, the rescuer and the test through its Unix-domain socket; `iptables` then drops
/// every packet to PostgreSQL's TCP port in the middle of the first worker's upload (paced by the dev server so it
/// is in flight). Its heartbeats go unanswered, its lease lapses, the rescuer takes the job over and uploads it;
/// the first worker keeps sending bytes to Dropbox but must stop before its commit. With `autorename` on, a second
/// commit would leave `photo (1).jpg` beside the file.
@Suite("a worker partitioned from PostgreSQL", .tags(.postgres, .process), .serialized)
struct PartitionedWorkerTests {
    @Test(
        "a worker partitioned from PostgreSQL past its lease does not commit: the job finishes once, elsewhere, one file at the destination",
        .enabled(if: NetworkNamespace.isAvailable, "needs root, `ip netns` and `iptables` (skipped otherwise)"))
    func partitionedPastLease() async throws {
        let namespace = try NetworkNamespace(label: "part")
        defer { namespace.delete() }
        let (port, socketURL, stop) = try await Self.startPostgres(in: namespace)
        defer { stop() }
        let db = TestDatabase(url: socketURL, name: "postgres")
        let migrate = try await FerryProcess.run(["migrate"], databaseURL: socketURL)
        try #require(migrate.status == 0, "\(migrate.stderr)")
        let server = try await NamespacedDevServer(in: namespace)
        let token = try await server.refreshToken(for: "photos")
        let added = try await FerryProcess.run(
            ["account", "add", "photos", "--provider", "dropbox", "--refresh-token-file", "-", "--no-verify"] + server.accountOptions,
            databaseURL: socketURL, stdin: token + "\n", environment: DropboxAccounts.environment)
        try #require(added.status == 0, "\(added.stderr)")
        // 48 MiB paced in 4 MiB chunks: twelve chunks, so most of the upload is still to go when the first one is
        // recorded (when the partition comes), and the lease lapses while it is in flight even when a loaded machine
        // is slow to see that record (with 6 and then 16 MiB, clean-clone runs partitioned it after the last byte,
        // and the first worker rightly committed inside its lease).
        _ = try await server.request("POST", "/__dev/faults", json: .object(["upload_bytes_per_second": .int(384 * 1024)]))
        let folder = try temporaryFolder("partition")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try DropboxAccounts.randomFile(folder + "/photo.jpg", size: 48 << 20)
        let sha = try DropboxAccounts.sha256(folder + "/photo.jpg")

        // A 20 s rescue window: with 4 s, a loaded machine once starved the first worker past its own lease before the
        // partition, and it put its job back itself. The upload (about 128 s) still outlasts the lease by far.
        let timings = ["--heartbeat-interval", "0.3", "--rescue-after", "20", "--poll-interval", "0.5", "--retry-base", "0.2", "--chunk-size", "4",
                       "--no-schedules", "--log-level", "info"]
        let environment = DropboxAccounts.environment
        let cutOff = try BackgroundProcess(
            ferry: ["worker", "--name", "cut-off"] + timings, databaseURL: "postgresql://postgres@127.0.0.1:\(port)/postgres",
            environment: environment, launcher: namespace.launcher)
        defer { cutOff.signal(SIGKILL) }
        let id = try await SQLEnqueueWorkerTests.enqueue(db, "upload", folder + "/photo.jpg", "dropbox:photos:/Camera/", #"{"options": {"autorename": true}}"#)
        try await eventually(timeout: .seconds(300), interval: .milliseconds(100), "the first worker's upload to be in flight") {
            try await count(
                db, "SELECT count(*) FROM ferry.jobs WHERE worker = 'cut-off' AND state = 'running' AND bytes_done > 0") == 1
        }
        try namespace.blackHole(port: port)
        defer { try? namespace.heal() }
        // The partition came while the upload was in flight (through the socket, which the rule does not touch).
        try #require(
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE worker = 'cut-off' AND state = 'running' AND bytes_done < bytes_total") == 1,
            "the partition must come before the first worker's last byte")

        // Only now a second worker, which reaches PostgreSQL through the socket: it rescues the job once the first
        // one's heartbeat is 20 s old, and uploads it again.
        let rescuer = try BackgroundProcess(
            ferry: ["worker", "--name", "rescuer"] + timings, databaseURL: socketURL, environment: environment, launcher: namespace.launcher)
        defer { rescuer.signal(SIGKILL) }
        try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "the rescuer to finish the job") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == 1
        }
        // Healed, the cut-off worker's pending writes land (or fail) and its attempt goes on: it must stop, by the
        // fence before its commit or by the refusal of its next record, and never commit.
        try namespace.heal()
        do {
            try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "the cut-off worker to stop its attempt") {
                Self.stopped(cutOff.log)
            }
        } catch {
            Issue.record("the cut-off worker's log ends: \(cutOff.log.suffix(4000))")
            throw error
        }

        let succeeded = try await db.query(
            """
            SELECT coalesce(c.data->>'worker', '') FROM ferry.events s
              JOIN ferry.events c ON c.job_id = s.job_id AND c.type = 'claimed' AND c.data->'lease' = s.data->'lease'
             WHERE s.job_id = $1 AND s.type = 'succeeded'
            """, [id]).rows
        #expect(succeeded.count == 1, "the job succeeded once")
        let winner = try succeeded.first.map { try $0.decode(String.self, at: 0) }
        #expect(winner == "rescuer", "and on the rescuer's claim")
        #expect(try await count(db, "SELECT count(*) FROM ferry.events WHERE type = 'rescued'") >= 1)
        #expect(server.storedNames(account: "photos", folder: "/Camera") == ["photo.jpg"], "one file, no `photo (1).jpg`")
        #expect(try DropboxAccounts.sha256(server.storage + "/photos/Camera/photo.jpg") == sha)
        let stats = try await server.request("GET", "/__dev/stats")
        #expect(stats["commits_per_path"] == .object(["/camera/photo.jpg": .int(1)]), "one commit: \(stats["commits_per_path"] ?? .null)")

        // Healed, the cut-off worker runs again, and a new job on it still works.
        for worker in [cutOff, rescuer] { worker.signal(SIGTERM) }
        #expect(try await rescuer.waitForExit(timeout: .seconds(60)) == 0, "\(rescuer.log.suffix(2000))")
        _ = try await cutOff.waitForExit(timeout: .seconds(120))
    }

    /// The first worker's attempt ended without a commit: stopped by the fence, or refused on its next record.
    static func stopped(_ log: String) -> Bool {
        log.contains("lease lapsed") || log.contains("claim lost") || log.contains("outcomes not written")
    }

    /// PostgreSQL started inside `namespace` by scripts/pg.sh: its TCP port, a URL through its socket, and a stop.
    static func startPostgres(in namespace: NetworkNamespace) async throws -> (port: Int, socketURL: String, stop: @Sendable () -> Void) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-part-pg-\(getpid())").path
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/pg.sh").path
        let stop: @Sendable () -> Void = {
            _ = NetworkNamespace.shell("/bin/bash \(NetworkNamespace.quoted(script)) stop \(NetworkNamespace.quoted(directory))")
            try? FileManager.default.removeItem(atPath: directory)
        }
        stop()
        try await namespace.runDetached("/bin/bash \(NetworkNamespace.quoted(script)) start \(NetworkNamespace.quoted(directory)) --fast")
        let text = try String(contentsOfFile: directory + "/port", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let port = Int(text) else {
            stop()
            throw TestSupportError("pg.sh wrote no port")
        }
        return (port, "postgresql://postgres@/postgres?host=\(directory.replacingOccurrences(of: "/", with: "%2F"))&port=\(port)", stop)
    }
}
