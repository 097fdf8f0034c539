import FerryTestSupport
import Foundation
import Testing

/// A local path outside the workers' roots is refused at enqueue when the producer states the roots
/// (`FERRY_ENQUEUE_LOCAL_ROOTS`), instead of exiting 0 and failing on the worker with outside_local_roots.
@Suite("enqueue: local paths outside the stated worker roots", .tags(.postgres, .process))
struct EnqueueLocalRootsTests {
    @Test("outside (absolute or relative to the current folder) refused with exit 65 and the fix; inside taken; unstated, unchecked")
    func refusedAtEnqueue() async throws {
        let db = try await TestDatabase.make("enqroots")
        let root = try temporaryFolder("enqroots")
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/in", withIntermediateDirectories: true)
        let stated = ["FERRY_ENQUEUE_LOCAL_ROOTS": root + "/in"]
        let outside = try await FerryProcess.run(
            ["enqueue", "fetch", "https://example.com/a.jpg", "--to", "/etc/x/"], databaseURL: db.url, environment: stated)
        #expect(outside.status == 65, "\(outside.stdout)\(outside.stderr)")
        #expect(outside.stderr.contains("/etc/x/a.jpg is outside the workers' local roots") && outside.stderr.contains("--local-root"),
                "\(outside.stderr)")
        let relative = try await FerryProcess.run(
            ["enqueue", "fetch", "https://example.com/a.jpg", "--to", "relative/dir/"], databaseURL: db.url, environment: stated,
            currentDirectory: root)
        #expect(relative.status == 65 && relative.stderr.contains("\(root)/relative/dir/a.jpg is outside"), "\(relative.stderr)")
        #expect(try await db.query("SELECT count(*)::int FROM ferry.jobs").rows[0].decode(Int.self, at: 0) == 0, "nothing half done")

        let inside = try await FerryProcess.run(
            ["enqueue", "fetch", "https://example.com/a.jpg", "--to", root + "/in/"], databaseURL: db.url, environment: stated)
        #expect(inside.status == 0, "\(inside.stderr)")
        let unstated = try await FerryProcess.run(
            ["enqueue", "fetch", "https://example.com/b.jpg", "--to", "/etc/x/", "--dry-run"], databaseURL: db.url)
        #expect(unstated.status == 0, "the workers' roots are theirs to know: \(unstated.stderr)")
    }
}
