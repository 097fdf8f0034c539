import AsyncHTTPClient
import FerryCore
import FerryDevServer
import FerryTestSupport
import Foundation
import Postgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `ferry worker --local-root`: a producer names paths on the workers' machines, and a worker reads and writes
/// only inside its roots, judged by the real path of what it opens. Real `ferry_producer` logins; the confinement
/// by a real worker in process on PostgreSQL with the registry's handlers and a dev server in process; the
/// startup refusals by `ferry worker` processes (exit codes).
@Suite("local roots confine what producers can make workers read and write")
struct LocalRootsTests {
    static func producer(_ db: TestDatabase) async throws -> PostgresClient {
        let name = "lr_producer_\(UInt32.random(in: 0...UInt32.max))"
        try await db.query("CREATE ROLE \(name) LOGIN IN ROLE ferry_producer")
        return PostgresClient(configuration: PostgresConfiguration(
            connectionString: db.url.replacingOccurrences(of: "postgres@", with: "\(name)@"), poolSize: 1))
    }

    static func enqueue(_ client: PostgresClient, _ kind: String, _ source: String, _ destination: String) async throws -> UUID {
        try await client.withConnection {
            try $0.query("SELECT ferry.enqueue($1, $2, $3)", [kind, source, destination]).rows[0].decode(UUID.self, at: 0)
        }
    }

    static func outcome(_ db: TestDatabase, _ job: UUID) async throws -> (state: String, error: String) {
        let row = try await db.query("SELECT state, coalesce(last_error, '') FROM ferry.jobs WHERE job_id = $1", [job]).rows[0]
        return (try row.decode(String.self, at: 0), try row.decode(String.self, at: 1))
    }

    static func write(_ path: String, _ text: String, mode: mode_t) {
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        chmod(path, mode)
    }

    static func mode(_ path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & 0o777 : 0
    }

    /// Everything below `path`, relative, sorted.
    static func tree(_ path: String) -> [String] {
        (FileManager.default.subpaths(atPath: path) ?? []).sorted()
    }

    @Test("the issue's attacks as a ferry_producer login: files outside the roots are neither read nor written, through paths, symlinks or symlinked folders; work inside the roots runs, copies never wider than their source",
          .tags(.postgres))
    func producerAttacks() async throws {
        try await PostgresWorker.withDevServer { server, web, http in try await Self.attacks(server: server, web: web, http: http) }
    }

    static func attacks(server: DevServer, web: String, http: HTTPClient) async throws {
        let db = try await TestDatabase.make("local_roots")
        let dir = try temporaryFolder("local-roots")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (root, outside) = (dir + "/root", dir + "/outside")
        for folder in [root + "/in", root + "/out", outside] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        Self.write(outside + "/secret.txt", "TOPSECRET", mode: 0o600)
        Self.write(root + "/in/ok.txt", "hello from inside", mode: 0o640)
        Self.write(root + "/in/private.txt", "private inside", mode: 0o600)
        symlink(outside + "/secret.txt", root + "/in/link.txt")   // a file symlink leading out
        symlink(outside, root + "/in/escape")                      // a folder symlink leading out
        symlink(root + "/in/ok.txt", root + "/in/inner-link.txt")  // a symlink that stays inside
        try server.createWebFile(path: "roots/photo.jpg", size: 4_096, seed: 1)
        let url = web + "/roots/photo.jpg"

        let producer = try await Self.producer(db)
        defer { producer.close() }
        let attacks: [(String, UUID)] = [
            ("read a file outside", try await Self.enqueue(producer, "upload", outside + "/secret.txt", "file://" + root + "/out/")),
            ("write into a folder outside", try await Self.enqueue(producer, "upload", root + "/in/ok.txt", outside + "/drop/")),
            ("fetch into a folder outside", try await Self.enqueue(producer, "fetch", url, outside + "/fetched/")),
            ("read through a file symlink", try await Self.enqueue(producer, "upload", root + "/in/link.txt", "file://" + root + "/out/")),
            ("read through a folder symlink", try await Self.enqueue(producer, "upload", root + "/in/escape/secret.txt", "file://" + root + "/out/")),
            ("write through a folder symlink", try await Self.enqueue(producer, "upload", root + "/in/ok.txt", "file://" + root + "/in/escape/")),
            ("fetch through a folder symlink", try await Self.enqueue(producer, "fetch", url, root + "/in/escape/f/")),
        ]
        let fine = [
            try await Self.enqueue(producer, "upload", root + "/in/ok.txt", "file://" + root + "/out/"),
            try await Self.enqueue(producer, "upload", root + "/in/private.txt", "file://" + root + "/out/"),
            try await Self.enqueue(producer, "upload", root + "/in/inner-link.txt", "file://" + root + "/out/"),
            try await Self.enqueue(producer, "fetch", url, root + "/fetched/"),
        ]

        // The test's folder is under /tmp; the worker's roots narrow it to `root`.
        let worker = try PostgresWorker.transfers(db, name: "roots", roots: [root], http: http)
        try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "every job to finish") {
            try await URLFetchTests.allFinished(db)
        }
        try await worker.stop()

        for (name, job) in attacks {
            let result = try await Self.outcome(db, job)
            #expect(result.state == "failed", "\(name): \(result)")
            #expect(result.error.hasPrefix("outside_local_roots:") && result.error.contains("--local-root"), "\(name): \(result.error)")
            #expect(!result.error.contains("TOPSECRET"))
        }
        for job in fine {
            let result = try await Self.outcome(db, job)
            #expect(result.state == "succeeded", "\(result)")
        }
        // Nothing written outside, nothing from outside inside.
        #expect(Self.tree(outside) == ["secret.txt"], "\(Self.tree(outside))")
        #expect(Self.tree(root + "/out") == ["inner-link.txt", "ok.txt", "private.txt"], "\(Self.tree(root + "/out"))")
        #expect(FileManager.default.contents(atPath: root + "/out/ok.txt") == Data("hello from inside".utf8))
        // Copies keep the source's bits (0640, 0600), never the old 0644; fetched files are 0600.
        #expect(Self.mode(root + "/out/ok.txt") == 0o640)
        #expect(Self.mode(root + "/out/private.txt") == 0o600)
        #expect(Self.mode(root + "/fetched/photo.jpg") == 0o600)
    }

    @Test("a worker with no local roots refuses to start (exit 78, naming --local-root); a missing root too; --any-local-path starts and warns",
          .tags(.postgres, .process))
    func startupRefusals() async throws {
        let db = try await TestDatabase.make("local_roots_start")
        _ = try await FerryProcess.run(["migrate"], databaseURL: db.url)
        let none = try BackgroundProcess(
            ferry: ["worker", "--name", "no-roots"], databaseURL: db.url, environment: ["FERRY_LOCAL_ROOTS": ""])
        #expect(try await none.waitForExit() == 78)
        #expect(none.log.contains("--local-root DIR") && none.log.contains("--any-local-path"), "\(none.log)")

        let missing = try BackgroundProcess(ferry: ["worker", "--name", "bad-root", "--local-root", "/nonexistent/ferry-root"], databaseURL: db.url)
        #expect(try await missing.waitForExit() == 78)
        #expect(missing.log.contains("/nonexistent/ferry-root") && missing.log.contains("does not exist"), "\(missing.log)")

        let dotdot = try BackgroundProcess(ferry: ["worker", "--name", "dd-root", "--local-root", "/tmp/../etc"], databaseURL: db.url)
        #expect(try await dotdot.waitForExit() == 78)

        let any = try BackgroundProcess(
            ferry: ["worker", "--name", "any", "--any-local-path", "--poll-interval", "0.2"], databaseURL: db.url,
            environment: ["FERRY_LOCAL_ROOTS": ""])
        try await eventually(timeout: .seconds(120), interval: .milliseconds(100), "the loud warning") {
            any.log.contains("--any-local-path") && any.log.contains("every producer")
        }
        #expect(any.isRunning)
        any.signal(SIGTERM)
        #expect(try await any.waitForExit() == 0)
    }
}
