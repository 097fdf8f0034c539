import Crypto
import FerryClient
import FerryCore
import FerryTestSupport
import Foundation
import Postgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@testable import FerryWorker

/// Local directory uploads through real workers: the kernel copy (`copy_file_range`) and its read/write fallback,
/// resume after kill -9, and `--bwlimit`. The kernel copy and the limit run their workers in the test's process
/// (`InProcessFleet`); the fallback (an environment variable read once per process) and the kill -9 run `ferry worker`.
@Suite("local copies", .tags(.postgres), .serialized)
struct LocalCopyTests {
    /// The worker's environment that turns `copy_file_range` off (the fallback), or nothing.
    static func environment(fallback: Bool) -> [String: String] {
        fallback ? ["FERRY_TEST_NO_COPY_FILE_RANGE": "1"] : [:]
    }

    static func files(_ sizes: [Int]) throws -> (dir: String, files: [String]) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-copy-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let urandom = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/dev/urandom"))
        defer { try? urandom.close() }
        var files = [String]()
        for (index, size) in sizes.enumerated() {
            let path = "\(dir)/file-\(index).bin"
            _ = FileManager.default.createFile(atPath: path, contents: try urandom.read(upToCount: size) ?? Data())
            files.append(path)
        }
        return (dir, files)
    }

    static func sha256(_ path: String) throws -> String {
        SHA256.hash(data: try Data(contentsOf: URL(fileURLWithPath: path))).map { String(format: "%02x", $0) }.joined()
    }

    /// `ferry enqueue --from -` of one upload line per file into `file://TARGET`.
    static func enqueue(_ fleet: InProcessFleet, _ files: [String], to target: String, batch: String) async throws {
        _ = try await fleet.client.enqueue(files.map { JobRequest(kind: .upload, source: $0, to: "file://" + target, batch: batch) })
    }

    /// Empty, one byte, one pool buffer exactly, 64 KiB + 1, 3 MiB + 7, and 20 MiB + 3 (three 8 MiB chunks), with modes
    /// other than the default (the copy takes the source's bits).
    static func byteExactFiles() throws -> (dir: String, files: [String]) {
        let sizes = [0, 1, 256 * 1024, 65_537, 3 * 1024 * 1024 + 7, 20 * 1024 * 1024 + 3]
        let (source, files) = try Self.files(sizes)
        for (index, file) in files.enumerated() { chmod(file, index % 2 == 0 ? 0o640 : 0o600) }
        return (source, files)
    }

    /// Every copy equals its source, with its permission bits and recorded SHA-256; no partial file is left.
    static func expectCopies(_ db: TestDatabase, _ files: [String], in target: String) async throws {
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == files.count)
        for file in files {
            let copy = target + (file as NSString).lastPathComponent
            #expect(FileManager.default.contentsEqual(atPath: file, andPath: copy), "\(file)")
            var (from, to) = (stat(), stat())
            stat(file, &from)
            stat(copy, &to)
            #expect(from.st_mode & 0o777 == to.st_mode & 0o777, "\(copy) has the source's permission bits")
            let recorded = try await db.query("SELECT result->>'sha256' FROM ferry.jobs WHERE source = $1", [file]).rows[0].decode(String.self, at: 0)
            #expect(recorded == (try Self.sha256(file)), "the recorded SHA-256 of \(file)")
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: target).filter { $0.hasSuffix(".part") }
        #expect(leftovers.isEmpty)
    }

    @Test("small and large files are copied byte-exact (the kernel copy), with their SHA-256 and permission bits")
    func byteExact() async throws {
        // This process leaves copy_file_range on (the fallback's switch is the process's environment).
        #expect(OwnedFile.kernelCopyAllowed)
        try await InProcessFleet.run("copykernel") { fleet in
            let (source, files) = try Self.byteExactFiles()
            let target = source + "-out/"
            defer {
                try? FileManager.default.removeItem(atPath: source)
                try? FileManager.default.removeItem(atPath: String(target.dropLast()))
            }
            try await Self.enqueue(fleet, files, to: target, batch: "c")
            let worker = try fleet.worker("copier", concurrency: 3)
            try await eventually(timeout: .seconds(300), "batch to finish") { try await WorkerFixtures.batchDone(fleet.db, "c") }
            try await fleet.stop([worker])
            try await Self.expectCopies(fleet.db, files, in: target)
        }
    }

    @Test("with copy_file_range off, the read and write fallback copies byte-exact and says so in the worker's log", .tags(.process))
    func byteExactFallback() async throws {
        let db = try await TestDatabase.make("copyfallback")
        let (source, files) = try Self.byteExactFiles()
        let target = source + "-out/"
        defer {
            try? FileManager.default.removeItem(atPath: source)
            try? FileManager.default.removeItem(atPath: String(target.dropLast()))
        }
        let enqueue = try await FerryProcess.run(
            ["enqueue", "--from", "-"], databaseURL: db.url, stdin: WorkerFixtures.jsonl(uploading: files, to: "file://" + target, batch: "c"))
        #expect(enqueue.status == 0, "\(enqueue.stderr)")
        let worker = try TestWorker.start(
            db, name: "copier", ["--concurrency", "3"], environment: Self.environment(fallback: true), logLevel: "debug")
        try await eventually(timeout: .seconds(300), "batch to finish") { try await WorkerFixtures.batchDone(db, "c") }
        worker.signal(SIGTERM)
        #expect(try await worker.waitForExit() == 0)
        try await Self.expectCopies(db, files, in: target)
        // Which path ran: the fallback says so once per job (at debug).
        #expect(worker.log.contains("copied with read and write"), "\(worker.log.suffix(2000))")
    }

    @Test("kill -9 mid-copy: the next worker resumes from the recorded offset", .tags(.process), arguments: [false, true])
    func resumeAfterKill(fallback: Bool) async throws {
        let db = try await TestDatabase.make(fallback ? "copyresumefb" : "copyresume")
        let (source, files) = try Self.files(Array(repeating: 12 * 1024 * 1024 + 5, count: 3))
        let target = source + "-out/"
        defer {
            try? FileManager.default.removeItem(atPath: source)
            try? FileManager.default.removeItem(atPath: String(target.dropLast()))
        }
        _ = try await FerryProcess.run(
            ["enqueue", "--from", "-"], databaseURL: db.url, stdin: WorkerFixtures.jsonl(uploading: files, to: "file://" + target, batch: "r"))
        // 1 MiB chunks at 6 MiB/s: the victim is surely mid-copy when 3 progress events are in.
        let environment = Self.environment(fallback: fallback)
        let victim = try TestWorker.start(
            db, name: "victim", ["--concurrency", "3", "--chunk-size", "1", "--bwlimit", "6M"], environment: environment)
        let killer = try WorkerFixtures.killWhen(
            db, pid: victim.pid, count: "SELECT count(*) FROM ferry.events WHERE type = 'progress' AND data->>'lease' IS NOT NULL",
            reaches: 3)
        _ = try await victim.waitForExit()
        try await eventually(timeout: .seconds(300), "the killer to exit") { !killer.isRunning }
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'running' AND worker = 'victim'") > 0)
        let survivor = try TestWorker.start(db, name: "survivor", ["--concurrency", "3", "--chunk-size", "1"], environment: environment)
        try await eventually(timeout: .seconds(300), "batch to finish") { try await WorkerFixtures.batchDone(db, "r") }
        survivor.signal(SIGTERM)
        #expect(try await survivor.waitForExit() == 0)

        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == files.count)
        #expect(survivor.log.contains("resuming upload"), "\(survivor.log.suffix(2000))")
        // No job the victim had moved past its first chunk wrote that first chunk again.
        let restartedFromZero = try await count(db, """
            SELECT count(*) FROM ferry.events e
             WHERE e.type = 'progress' AND (e.data->>'lease')::int >= 2
               AND (e.data->>'bytes_done')::bigint <= 1048576
               AND EXISTS (SELECT 1 FROM ferry.events p WHERE p.job_id = e.job_id AND p.type = 'progress'
                                                          AND p.data->>'lease' = '1')
            """)
        #expect(restartedFromZero == 0, "a rescued job copied its first chunk again")
        for file in files {
            let copy = target + (file as NSString).lastPathComponent
            #expect(FileManager.default.contentsEqual(atPath: file, andPath: copy))
            let recorded = try await db.query("SELECT result->>'sha256' FROM ferry.jobs WHERE source = $1", [file]).rows[0].decode(String.self, at: 0)
            #expect(recorded == (try Self.sha256(file)), "the SHA-256 covers the resumed part too")
        }
    }

    // A rate a worker holds is measured on a worker process of its own: in the test's process a worker shares the
    // cooperative pool's two threads with every other test running, and a loaded run moved less than the floor.
    @Test("--bwlimit 2M holds within 10 %: 30 MiB through one worker, rate from the jobs' recorded times", .tags(.process))
    func bandwidthLimit() async throws {
        let db = try await TestDatabase.make("bwlimit")
        let (source, files) = try Self.files(Array(repeating: 3 * 1024 * 1024, count: 10))
        let target = source + "-out/"
        defer {
            try? FileManager.default.removeItem(atPath: source)
            try? FileManager.default.removeItem(atPath: String(target.dropLast()))
        }
        _ = try await FerryProcess.run(
            ["enqueue", "--from", "-"], databaseURL: db.url, stdin: WorkerFixtures.jsonl(uploading: files, to: "file://" + target, batch: "bw"))
        let worker = try TestWorker.start(db, name: "limited", ["--concurrency", "4", "--bwlimit", "2M"])
        try await eventually(timeout: .seconds(300), "batch to finish") { try await WorkerFixtures.batchDone(db, "bw") }
        worker.signal(SIGTERM)
        #expect(try await worker.waitForExit() == 0)
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == 10)

        // From the first start to the last finish as the database recorded them, not this test's clock (a busy
        // test process wakes late).
        let seconds = try await db.query(
            "SELECT extract(epoch FROM max(finished_at) - min(started_at))::float8 FROM ferry.jobs WHERE batch = 'bw'"
        ).rows[0].decode(Double.self, at: 0)
        let rate = Double(30 * 1024 * 1024) / seconds
        let limit = Double(2 * 1024 * 1024)
        // The limit's promise: never more than 10 % over it. Below it, a wide margin: a worker starved on a loaded CI
        // machine moves less, and only a limiter that stalls would fall this far.
        #expect(rate <= 1.1 * limit, "moved \(rate / 1_048_576) MiB/s in \(seconds) s, limit 2 MiB/s")
        #expect(rate >= 0.75 * limit, "moved \(rate / 1_048_576) MiB/s in \(seconds) s, limit 2 MiB/s")
    }
}
