import FerryTestSupport
import Foundation
import Testing

/// A local path a worker would refuse is refused at enqueue instead of exiting 0 and failing on the worker with
/// outside_local_roots: a relative --to always (a worker does not know the producer's folder), and a path outside
/// the workers' roots when the producer is told them (`FERRY_ENQUEUE_LOCAL_ROOTS`, or the database setting
/// `local_roots`).
@Suite("enqueue: local paths a worker would refuse", .tags(.postgres, .process))
struct EnqueueLocalRootsTests {
    static func jobs(_ db: TestDatabase) async throws -> Int {
        try await count(db, "SELECT count(*) FROM ferry.jobs")
    }

    @Test("a relative --to is refused always (exit 65, the absolute path it meant named), on the command line and in --from lines")
    func relativeRefused() async throws {
        let db = try await TestDatabase.make("enqrelative")
        let root = try temporaryFolder("enqrelative")
        defer { try? FileManager.default.removeItem(atPath: root) }
        for to in ["relative/dir/", "../../etc/", "./x.jpg"] {
            let refused = try await FerryProcess.run(
                ["enqueue", "fetch", "https://example.com/a.jpg", "--to", to], databaseURL: db.url, currentDirectory: root)
            #expect(refused.status == 65, "\(to): \(refused.stdout)\(refused.stderr)")
            #expect(refused.stderr.contains("\(to) is a relative path") && refused.stderr.contains("give an absolute path"), "\(refused.stderr)")
        }
        let named = try await FerryProcess.run(
            ["enqueue", "fetch", "https://example.com/a.jpg", "--to", "relative/dir/"], databaseURL: db.url, currentDirectory: root)
        #expect(named.stderr.contains("such as \(root)/relative/dir/"), "the fix names the path it meant: \(named.stderr)")
        // In a list, the line is named and nothing of the list is written.
        let lines = """
            {"kind":"fetch","source":"https://example.com/a.jpg","to":"/srv/in/"}
            {"kind":"fetch","source":"https://example.com/b.jpg","to":"in/"}
            """
        let list = try await FerryProcess.run(["enqueue", "--from", "-"], databaseURL: db.url, stdin: lines)
        #expect(list.status == 65 && list.stderr.contains("line 2") && list.stderr.contains("in/ is a relative path"), "\(list.stderr)")
        let dry = try await FerryProcess.run(["enqueue", "--from", "-", "--dry-run", "--json"], databaseURL: db.url, stdin: lines)
        #expect(dry.status == 65 && dry.stdout.contains(#""fate":"refuse""#), "a dry run says so too: \(dry.stdout)\(dry.stderr)")
        #expect(try await Self.jobs(db) == 0, "nothing half done")
        let absolute = try await FerryProcess.run(
            ["enqueue", "fetch", "https://example.com/a.jpg", "--to", "/srv/in/"], databaseURL: db.url, currentDirectory: root)
        #expect(absolute.status == 0, "\(absolute.stderr)")
    }

    @Test("outside the roots stated in the environment refused with exit 65 and the fix; inside taken; unstated, unchecked")
    func environmentRoots() async throws {
        let db = try await TestDatabase.make("enqroots")
        let root = try temporaryFolder("enqroots")
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/in", withIntermediateDirectories: true)
        let stated = ["FERRY_ENQUEUE_LOCAL_ROOTS": root + "/in"]
        let outside = try await FerryProcess.run(
            ["enqueue", "fetch", "https://example.com/a.jpg", "--to", "/etc/x/"], databaseURL: db.url, environment: stated)
        #expect(outside.status == 65, "\(outside.stdout)\(outside.stderr)")
        #expect(outside.stderr.contains("/etc/x/a.jpg is outside the workers' local roots (FERRY_ENQUEUE_LOCAL_ROOTS")
                && outside.stderr.contains("--local-root"), "\(outside.stderr)")
        #expect(try await Self.jobs(db) == 0, "nothing half done")

        let inside = try await FerryProcess.run(
            ["enqueue", "fetch", "https://example.com/a.jpg", "--to", root + "/in/"], databaseURL: db.url, environment: stated)
        #expect(inside.status == 0, "\(inside.stderr)")
        let unstated = try await FerryProcess.run(
            ["enqueue", "fetch", "https://example.com/b.jpg", "--to", "/etc/x/", "--dry-run"], databaseURL: db.url)
        #expect(unstated.status == 0, "the workers' roots are theirs to know: \(unstated.stderr)")
    }

    @Test("the database setting local_roots states the fleet's roots to every producer, folders that need not exist here")
    func databaseRoots() async throws {
        let db = try await TestDatabase.make("enqrootsdb")
        try await db.query("INSERT INTO ferry.settings (name, value) VALUES ('local_roots', '/srv/fleet-in:/srv/fleet-out')")
        let outside = try await FerryProcess.run(["enqueue", "fetch", "https://example.com/a.jpg", "--to", "/srv/fleet-inbox/"], databaseURL: db.url)
        #expect(outside.status == 65, "a sibling whose name starts like a root is outside: \(outside.stdout)\(outside.stderr)")
        #expect(outside.stderr.contains("(the database setting local_roots: /srv/fleet-in, /srv/fleet-out)"), "\(outside.stderr)")
        let escape = try await FerryProcess.run(["enqueue", "fetch", "https://example.com/a.jpg", "--to", "/srv/fleet-in/../../etc/"], databaseURL: db.url)
        #expect(escape.status == 65, "\(escape.stderr)")
        #expect(try await Self.jobs(db) == 0, "nothing half done")
        let inside = try await FerryProcess.run(["enqueue", "fetch", "https://example.com/a.jpg", "--to", "/srv/fleet-out/feed/"], databaseURL: db.url)
        #expect(inside.status == 0, "\(inside.stderr)")
        // The producer's own statement wins over the database's.
        let stated = try await FerryProcess.run(
            ["enqueue", "fetch", "https://example.com/b.jpg", "--to", "/srv/fleet-out/feed/", "--dry-run"], databaseURL: db.url,
            environment: ["FERRY_ENQUEUE_LOCAL_ROOTS": "/srv/elsewhere"])
        #expect(stated.status == 65 && stated.stderr.contains("FERRY_ENQUEUE_LOCAL_ROOTS: /srv/elsewhere"), "\(stated.stderr)")
    }

    @Test("a worker says at start where its roots and the fleet's local_roots disagree, and how to state them when unset")
    func workerComparesRoots() async throws {
        let db = try await TestDatabase.make("enqrootsworker")
        let root = try temporaryFolder("enqrootsworker")
        defer { try? FileManager.default.removeItem(atPath: root) }
        func startLog(_ expected: String) async throws -> String {
            let worker = try BackgroundProcess(
                ferry: ["worker", "--local-root", root, "--name", "roots", "--heartbeat-interval", "0.3", "--poll-interval", "0.3"],
                databaseURL: db.url)
            try await eventually(timeout: .seconds(300), "the worker to compare its roots") { worker.log.contains(expected) }
            worker.signal(SIGTERM)
            _ = try await worker.waitForExit(timeout: .seconds(300))
            return worker.log
        }
        let unset = try await startLog("producers are not told the workers' local roots")
        #expect(unset.contains("INSERT INTO ferry.settings (name, value) VALUES ('local_roots', '\(root)')"), "\(unset)")
        try await db.query("INSERT INTO ferry.settings (name, value) VALUES ('local_roots', '/srv/elsewhere')")
        let differ = try await startLog("local roots producers do not know")
        #expect(differ.contains("producers accept jobs for folders this worker does not hold") && differ.contains("/srv/elsewhere"), "\(differ)")
        try await db.query("UPDATE ferry.settings SET value = $1 WHERE name = 'local_roots'", [root])
        let agreed = try await startLog("worker started")
        #expect(!agreed.contains("producers do not know") && !agreed.contains("does not hold") && !agreed.contains("are not told"), "\(agreed)")
    }
}
