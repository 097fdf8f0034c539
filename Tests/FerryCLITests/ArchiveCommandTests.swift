import FerryArchive
import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Postgres
import Testing

/// `ferry archive`: the real binary, killed with SIGKILL at each step of a chunk, then run again.
@Suite("ferry archive", .tags(.postgres, .process))
struct ArchiveCommandTests {
    /// `count` jobs enqueued, claimed and succeeded (two of them failed).
    static func finishedJobs(_ db: TestDatabase, count: Int) async throws -> Set<String> {
        let store = db.store()
        defer { store.client.close() }
        let specs = (0..<count).map { _ in
            JobSpec(
                jobID: UUIDv7.make(), kind: .fetch, source: "https://example.com/\(UUID().uuidString).jpg",
                destination: "/srv/in/", account: nil, queue: "default", batch: "nightly", priority: 0, maxAttempts: 3,
                runAt: nil, idempotencyKey: nil, metadata: nil, bytesTotal: 1000, details: [:])
        }
        _ = try await store.enqueue(specs)
        while true {
            let claimed = try await store.claim(worker: "w", queues: ["default"], limit: 50)
            if claimed.isEmpty { break }
            _ = try await store.record(claimed.enumerated().map { index, job in
                index == 0 ? .failed(job, error: "bad") : .succeeded(job, bytes: 1000)
            })
        }
        return Set(specs.map { $0.jobID.uuidString.lowercased() })
    }

    static func files(in directory: String, suffix: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(suffix) }.sorted()
            .map { directory + "/" + $0 }
    }

    /// Job ids in the archive files of `directory`, with repeats.
    static func archivedIDs(in directory: String) throws -> [String] {
        var ids = [String]()
        for file in files(in: directory, suffix: ".jsonl.gz") {
            _ = try ArchiveFileReader.forEachJob(in: file) { line in
                if case .object(let fields)? = try? JSONValue.parse(line), case .object(let job)? = fields["job"],
                   case .string(let id)? = job["job_id"] { ids.append(id) }
            }
        }
        return ids
    }

    @Test("kill -9 after the file is written, after the commit, and after the rename: the next run loses nothing and duplicates nothing", arguments: ["written", "committed", "renamed"])
    func crashAtEachStep(point: String) async throws {
        let db = try await TestDatabase.make("archcrash")
        let jobs = try await Self.finishedJobs(db, count: 100)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-arch-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let arguments = ["archive", "--finished-before", "0s", "--to", directory, "--jobs-per-file", "40"]

        let crashed = try await FerryProcess.run(arguments, databaseURL: db.url, environment: ["FERRY_ARCHIVE_CRASH_AT": point])
        #expect(crashed.status == 9, "killed by SIGKILL: \(crashed.stderr)")
        let partials = Self.files(in: directory, suffix: ".partial")
        switch point {
        case "written":
            #expect(partials.count == 1)
            #expect(try await count(db, "SELECT count(*) FROM ferry.jobs") == 100, "nothing left the database")
            #expect(try await count(db, "SELECT count(*) FROM ferry.archives") == 0)
        case "committed":
            #expect(partials.count == 1)
            #expect(try await count(db, "SELECT count(*) FROM ferry.jobs") == 60)
            #expect(try await count(db, "SELECT count(*) FROM ferry.archives WHERE state = 'sealed'") == 1)
        default:
            #expect(partials.isEmpty)
            #expect(Self.files(in: directory, suffix: ".jsonl.gz").count == 1)
            #expect(Self.files(in: directory, suffix: ".manifest.json").isEmpty)
            #expect(try await count(db, "SELECT count(*) FROM ferry.archives WHERE state = 'sealed'") == 1)
        }

        // An archived job's history says where it went.
        if point != "written" {
            let gone = try await db.query(
                "SELECT job_id::text FROM ferry.archived_jobs LIMIT 1").rows[0].decode(String.self, at: 0)
            let events = try await FerryProcess.run(["events", gone], databaseURL: db.url)
            #expect(events.status == 67, "archived")
            #expect(events.stderr.contains("archived") && events.stderr.contains("ferry archive restore"), "\(events.stderr)")
        }

        let rerun = try await FerryProcess.run(arguments, databaseURL: db.url)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        if point == "written" { #expect(rerun.stdout.contains("removed uncommitted leftover")) }
        else { #expect(rerun.stdout.contains("finished interrupted archive")) }

        #expect(Self.files(in: directory, suffix: ".partial").isEmpty)
        let ids = try Self.archivedIDs(in: directory)
        #expect(ids.count == 100, "every job in exactly one file")
        #expect(Set(ids) == jobs)
        let archives = Self.files(in: directory, suffix: ".jsonl.gz")
        #expect(Self.files(in: directory, suffix: ".manifest.json").count == archives.count)
        #expect(try await count(db, "SELECT count(*) FROM ferry.archives WHERE state <> 'complete'") == 0)
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs") == 0)
        #expect(try await count(db, "SELECT count(*) FROM ferry.events") == 0)

        // The batch's jobs are all archived: wait says so (exit 67) and how it ended, from its completion record.
        let wait = try await FerryProcess.run(["wait", "--batch", "nightly", "--timeout", "5"], databaseURL: db.url)
        #expect(wait.status == 67, "\(wait.stderr)")
        #expect(wait.stderr.contains("was archived") && wait.stdout.contains("100 job(s)") && wait.stdout.contains("2 failed"), "\(wait.stdout)")

        for file in archives {
            let restored = try await FerryProcess.run(["archive", "restore", file], databaseURL: db.url)
            #expect(restored.status == 0, "\(restored.stderr)")
        }
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs") == 100)
        let verify = try await FerryProcess.run(["projection", "verify"], databaseURL: db.url)
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
        let one = try #require(jobs.first)
        let history = try await FerryProcess.run(["events", one], databaseURL: db.url)
        #expect(history.status == 0 && (history.stdout.contains("succeeded") || history.stdout.contains("failed")))
    }

    @Test("bad arguments name the problem and change nothing")
    func badArguments() async throws {
        let db = try await TestDatabase.make("archargs")
        _ = try await Self.finishedJobs(db, count: 3)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-arch-\(UUID().uuidString)").path
        let missing = try await FerryProcess.run(["archive", "--to", directory], databaseURL: db.url)
        #expect(missing.status == 65)
        #expect(missing.stderr.contains("--finished-before") && missing.stderr.contains("30d"))
        let bad = try await FerryProcess.run(["archive", "--finished-before", "yesterday", "--to", directory], databaseURL: db.url)
        #expect(bad.status == 65)
        #expect(bad.stderr.contains("'yesterday'"))
        let notArchive = directory + "-not.jsonl.gz"
        try Data("hello\n".utf8).write(to: URL(fileURLWithPath: notArchive))
        defer {
            try? FileManager.default.removeItem(atPath: notArchive)
            try? FileManager.default.removeItem(atPath: directory)
        }
        let restore = try await FerryProcess.run(["archive", "restore", notArchive], databaseURL: db.url)
        #expect(restore.status == 65, "\(restore.stderr)")
        #expect(!restore.stderr.contains("Fatal error"))
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs") == 3)
        // --keep is the retention spelling of the same thing.
        let keep = try await FerryProcess.run(["archive", "--keep", "0s", "--to", directory], databaseURL: db.url)
        #expect(keep.status == 0, "\(keep.stderr)")
        #expect(keep.stdout.contains("archived 3 jobs"))
    }
}
