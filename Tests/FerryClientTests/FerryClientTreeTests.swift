import FerryClient
import FerryTestSupport
import FerryTesting
import FerryWorker
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// An app enqueues a folder tree through FerryClient's public API (no CLI) and waits for it: the one producer path
/// `ferry enqueue upload DIR --recursive` also takes. A real worker runs in process against PostgreSQL.
@Suite("FerryClient: a tree enqueued from an app", .tags(.postgres))
struct FerryClientTreeTests {
    @Test("a tree is walked, filtered and enqueued whole; a pipe or a name that is not UTF-8 refuses all of it; the batch is waited for")
    func enqueueTreeAndWait() async throws {
        let db = try await TestDatabase.make("clienttree")
        let root = try temporaryFolder("client-tree")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let tree = root + "/photos"
        try FileManager.default.createDirectory(atPath: tree + "/2026/may", withIntermediateDirectories: true)
        let files = ["a.jpg": 10_000, "2026/b.jpg": 20_000, "2026/may/c.jpg": 30_000, "2026/may/scratch.tmp": 5]
        for (path, size) in files { try Data(repeating: UInt8(size % 251), count: size).write(to: URL(fileURLWithPath: "\(tree)/\(path)")) }
        let out = root + "/out/"

        let ferry = FerryClient(databaseURL: db.url, providers: .standard)
        defer { ferry.close() }
        let template = JobRequest(kind: .upload, source: "", to: "", batch: "tree")
        let noTemporaryFiles = FileFilter(rules: [FileFilter.Rule(include: false, pattern: try GlobPattern("*.tmp"), origin: "--exclude")])

        // A pipe, and a name that is not UTF-8 (a hostile or careless producer's), cannot be uploaded: the whole
        // enqueue is refused, naming each, and nothing is written.
        #expect(mkfifo(tree + "/2026/pipe", 0o600) == 0)
        let badName = Array((tree + "/2026/").utf8) + [0x66, 0xFF, 0x1B, 0x5B, 0x32, 0x4A, 0x2E, 0x6A, 0x70, 0x67, 0x00]
        let descriptor = badName.withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_CREAT | O_WRONLY, 0o600) } }
        #expect(descriptor >= 0)
        close(descriptor)
        do {
            _ = try await ferry.enqueueTree(tree, to: out, template: template, options: StreamedEnqueue(filter: noTemporaryFiles))
            Issue.record("a tree holding a pipe was enqueued")
        } catch let error as FerryClientError {
            #expect(error.code == .invalidRequests)
            #expect(error.issues.contains { $0.field.hasSuffix("2026/pipe") && $0.problem.contains("pipe") }, "\(error)")
            #expect(error.issues.contains { $0.problem == "the file name is not UTF-8" && $0.fix.contains("--skip-unreadable") }, "\(error)")
        }
        #expect(try await ferry.batch("tree") == nil, "nothing of the refused tree was enqueued")
        // A tree may not be uploaded into itself (each run would upload its own output again).
        await #expect(throws: FerryClientError.self) {
            _ = try await ferry.enqueueTree(tree, to: tree + "/copy/", template: template, options: StreamedEnqueue(skipUnreadable: true))
        }
        #expect(try await ferry.batch("tree") == nil)

        let jobs = try await ferry.enqueueTree(
            tree, to: out, template: template, options: StreamedEnqueue(filter: noTemporaryFiles, skipUnreadable: true))
        #expect(jobs.count == 3 && jobs.allSatisfy(\.created), "one job per file the filter takes (the pipe and the bad name skipped)")

        // The worker may read and write below the test's folder only, as `ferry worker --local-root` would.
        let batch = try await ClientTestWorker.during(db, root: root) { try await ferry.waitForBatch("tree", timeout: .seconds(300)) }

        let lastError = try await ferry.job(jobs[0].id)?.lastError
        #expect(batch.succeededWhole && batch.jobs == 3 && batch.bytesDone == 60_000, "\(lastError ?? "")")
        for (path, size) in files where !path.hasSuffix(".tmp") {
            #expect(FileManager.default.contents(atPath: out + path) == Data(repeating: UInt8(size % 251), count: size), "\(path) kept its place below the tree")
        }
        #expect(!FileManager.default.fileExists(atPath: out + "2026/may/scratch.tmp"), "the filter left it out")
    }
}
