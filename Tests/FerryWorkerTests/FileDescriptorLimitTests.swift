import FerryTestSupport
import FerryWorker
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Too few file descriptors for the concurrency asked: the worker runs fewer jobs at once and says so, instead of
/// failing opens and connects mid-job.
@Suite("file descriptor limits")
struct FileDescriptorLimitTests {
    @Test("the concurrency that fits: what is left after the open and reserved descriptors, four per job, at least 1", .tags(.fast))
    func budget() {
        let budget = FileDescriptorBudget(limit: 64, hardLimit: 64, open: 10, reserved: 30)
        #expect(budget.concurrency(asked: 128) == 6)
        #expect(budget.concurrency(asked: 3) == 3)
        #expect(FileDescriptorBudget(limit: 32, hardLimit: 32, open: 10, reserved: 30).concurrency(asked: 8) == 1)
        #expect(FileDescriptorBudget(limit: 1 << 20, hardLimit: 1 << 20, open: 10, reserved: 30).concurrency(asked: 1000) == 1000)
    }

    @Test("the soft limit is raised to the hard one before the budget is taken", .tags(.fast))
    func raisesSoftLimit() throws {
        var limits = rlimit()
        #expect(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0)
        let budget = try #require(FileDescriptorBudget.current(databaseConnections: 10))
        #expect(UInt64(budget.limit) == min(UInt64(limits.rlim_max), 1 << 20) || limits.rlim_max == rlim_t.max)
        #expect(budget.open >= 3 && budget.reserved >= 10 + FileDescriptorBudget.margin)
    }

    @Test("ulimit -n 64 with --concurrency 128: 200 local uploads all succeed, and the log says how many run at once", .tags(.postgres, .process))
    func lowLimit() async throws {
        let db = try await TestDatabase.make("fdlimit")
        let (source, files) = try WorkerFixtures.sourceFiles(count: 200, maxSize: 4096)
        let target = source + "-out/"
        defer {
            try? FileManager.default.removeItem(atPath: source)
            try? FileManager.default.removeItem(atPath: String(target.dropLast()))
        }
        let enqueue = try await FerryProcess.run(
            ["enqueue", "--from", "-"], databaseURL: db.url, stdin: WorkerFixtures.jsonl(uploading: files, to: "file://" + target, batch: "fd"))
        #expect(enqueue.status == 0, "\(enqueue.stderr)")
        let worker = try BackgroundProcess(
            ferry: ["worker", "--name", "fd-limited", "--heartbeat-interval", "0.3", "--rescue-after", "4", "--poll-interval", "0.5",
                    "--concurrency", "128"],
            databaseURL: db.url, launcher: ["/usr/bin/prlimit", "--nofile=64:64", "--"])
        try await eventually(timeout: .seconds(300), "the batch to finish") { try await WorkerFixtures.batchDone(db, "fd") }
        worker.signal(SIGTERM)
        #expect(try await worker.waitForExit() == 0)
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == files.count)
        #expect(try await count(db, "SELECT count(*) FROM ferry.events WHERE type IN ('retry_scheduled', 'deferred', 'failed')") == 0)
        let notice = try #require(worker.log.split(separator: "\n").first { $0.contains("too few file descriptors for --concurrency 128") })
        #expect(notice.contains("RLIMIT_NOFILE 64"), "\(notice)")
        for file in files {
            #expect(FileManager.default.contentsEqual(atPath: file, andPath: target + (file as NSString).lastPathComponent), "\(file)")
        }
    }
}
