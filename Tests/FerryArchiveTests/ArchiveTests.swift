import FerryArchive
import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Logging
import Postgres
import Testing

@Suite("archive and restore", .tags(.postgres))
struct ArchiveTests {
    @Test("archive moves finished jobs out whole, keeps open batches and the completion record; restore brings back exactly what left")
    func roundTrip() async throws {
        let db = try await TestDatabase.make("archive")
        let store = db.store()
        defer { store.client.close() }
        try await ArchiveFixtures.populate(store, finished: 120)
        let eventsBefore = try await ArchiveFixtures.eventDump(db)
        let jobsBefore = try await ArchiveFixtures.jobDump(db)
        let finished = try await count(
            db, "SELECT count(*) FROM ferry.jobs WHERE state IN ('succeeded', 'failed', 'cancelled', 'discarded') AND batch = 'done'")
        #expect(finished == 123)
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'discarded'") == 4)
        let finishedEvents = try await count(
            db, "SELECT count(*) FROM ferry.events e JOIN ferry.jobs j USING (job_id) WHERE j.batch = 'done'")
        let completedBefore = try await count(
            db, "SELECT count(*) FROM ferry.batch_events WHERE batch = 'done' AND type = 'completed'")
        #expect(completedBefore == 1)
        let unchanged = try await count(db, "SELECT unchanged FROM ferry.batch_status WHERE batch = 'done'")
        let skipped = try await count(
            db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'done' AND result->>'skipped' = 'unchanged'")
        #expect(unchanged > 0 && unchanged == skipped)

        let directory = try ArchiveFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let archiver = Archiver(store: store, directory: directory, logger: ArchiveFixtures.logger)
        let report = try await archiver.run(finishedBefore: Date().addingTimeInterval(5), jobsPerFile: 50)
        #expect(report.jobs == finished, "only the finished jobs of the complete batch leave")
        #expect(report.events == finishedEvents)
        #expect(report.written.count == 3, "50 jobs per file")

        // Gone from the log and the projection; the rest is untouched.
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'done'") == 0)
        #expect(try await count(
            db, "SELECT count(*) FROM ferry.events e WHERE NOT EXISTS (SELECT 1 FROM ferry.jobs j WHERE j.job_id = e.job_id)") == 0)
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'open'") == 2,
                "a batch with a queued job keeps its finished job too")
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE batch IS NULL") == 3)
        #expect(try await count(db, "SELECT count(*) FROM ferry.archived_jobs") == finished)
        #expect(try await count(db, "SELECT count(*) FROM ferry.batch_status WHERE batch = 'done'") == 0)
        #expect(try await count(
            db, "SELECT count(*) FROM ferry.batch_events WHERE batch = 'done' AND type = 'completed'") == 1,
            "the batch keeps its completion record")
        #expect(try await store.projection.verify().isClean)
        #expect(try await store.projection.queueCountDifferences().isEmpty, "archived jobs left the queue counters")
        #expect(try await store.projection.batchCountDifferences().isEmpty, "archived jobs left the batch counters")
        _ = try await store.compactCounters()
        #expect(try await count(db, "SELECT count(*) FROM ferry.batch_counts WHERE batch = 'done'") == 0,
                "a batch whose every job was archived has no counter row left")
        // An idempotency key of an archived job can be used again.
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE idempotency_key = 'k1'") == 0)

        // Each file: final name, manifest with the right checksum and counts, every job exactly once.
        var archivedIDs = Set<String>()
        for chunk in report.written {
            #expect(FileManager.default.fileExists(atPath: chunk.file))
            #expect(!FileManager.default.fileExists(atPath: chunk.file + ".partial"))
            let manifest = try #require(try ArchiveManifest.read(for: chunk.file))
            let actual = try ArchiveFileReader.checksum(of: chunk.file)
            #expect(manifest.sha256 == actual.sha256)
            #expect(manifest.bytes == actual.bytes)
            #expect(manifest.jobs == chunk.jobs)
            #expect(manifest.events == chunk.events)
            var lines = 0
            _ = try ArchiveFileReader.forEachJob(in: chunk.file) { line in
                lines += 1
                guard case .object(let fields)? = try? JSONValue.parse(line), case .object(let job)? = fields["job"],
                      case .string(let id)? = job["job_id"], case .array(let events)? = fields["events"]
                else { Issue.record("not a job line: \(line.prefix(200))"); return }
                #expect(!events.isEmpty)
                archivedIDs.insert(id)
            }
            #expect(lines == chunk.jobs)
        }
        #expect(archivedIDs.count == finished)
        let records = try await store.archive.all()
        #expect(records.count == 3 && records.allSatisfy { $0.state == .complete })

        // Running again finds nothing more to do.
        let again = try await archiver.run(finishedBefore: Date().addingTimeInterval(5), jobsPerFile: 50)
        #expect(again.jobs == 0 && again.written.isEmpty && again.recovered.isEmpty)

        // Restore every file: the log and the projection are exactly as before, the markers are gone.
        for chunk in report.written {
            let outcome = try await ArchiveRestorer(store: store).restore(chunk.file)
            #expect(outcome == .restored(jobs: chunk.jobs, events: chunk.events))
        }
        #expect(try await ArchiveFixtures.eventDump(db) == eventsBefore)
        #expect(try await ArchiveFixtures.jobDump(db) == jobsBefore)
        #expect(try await count(db, "SELECT count(*) FROM ferry.archived_jobs") == 0)
        #expect(try await store.projection.verify().isClean)
        #expect(try await store.projection.queueCountDifferences().isEmpty, "restored jobs are counted again")
        #expect(try await store.projection.batchCountDifferences().isEmpty, "restored jobs are in their batch again")
        let restoredBatch = try await count(db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'done'")
        #expect(restoredBatch > 0)
        #expect(try await count(db, "SELECT jobs FROM ferry.batch_status WHERE batch = 'done'") == restoredBatch)
        #expect(try await count(
            db, "SELECT count(*) FROM ferry.batch_events WHERE batch = 'done'") == 1, "restore adds no batch events")
        // A second restore does nothing.
        #expect(try await ArchiveRestorer(store: store).restore(report.written[0].file) == .alreadyRestored)
        #expect(try await ArchiveFixtures.eventDump(db) == eventsBefore)
        // Restored jobs work as before: a failed one can be retried and its stream continues.
        let failed = try await db.query("SELECT job_id FROM ferry.jobs WHERE state = 'failed' LIMIT 1").rows[0].decode(UUID.self, at: 0)
        let retried = try await store.retry(.job(failed), requestedBy: "test")
        #expect(retried.first?.action == .requeued)
    }

    @Test("a damaged file is refused and nothing is written; a file without manifest restores from the database's record")
    func checksums() async throws {
        let db = try await TestDatabase.make("archivesum")
        let store = db.store()
        defer { store.client.close() }
        try await ArchiveFixtures.populate(store, finished: 30)
        let directory = try ArchiveFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let report = try await Archiver(store: store, directory: directory, logger: ArchiveFixtures.logger)
            .run(finishedBefore: Date().addingTimeInterval(5), jobsPerFile: 1000)
        let file = try #require(report.written.first?.file)
        let original = try Data(contentsOf: URL(fileURLWithPath: file))
        let eventsBefore = try await ArchiveFixtures.eventDump(db)

        // Flip one byte near the end (inside the compressed data, after many lines were read).
        var damaged = original
        damaged[damaged.count - 12] ^= 0x5A
        try damaged.write(to: URL(fileURLWithPath: file))
        await #expect {
            try await ArchiveRestorer(store: store).restore(file)
        } throws: { error in
            (error as? ArchiveError)?.code == .corrupt
        }
        #expect(try await ArchiveFixtures.eventDump(db) == eventsBefore, "nothing was written")
        #expect(try await count(db, "SELECT count(*) FROM ferry.archived_jobs") == report.jobs)

        // The original file without its manifest: the database's record has the checksum.
        try original.write(to: URL(fileURLWithPath: file))
        try FileManager.default.removeItem(atPath: ArchiveManifest.path(for: file))
        #expect(try await ArchiveRestorer(store: store).restore(file) == .restored(jobs: report.jobs, events: report.events))
        #expect(try await store.projection.verify().isClean)
    }

    @Test("events leave only with an archive marker: the owner's DELETE without one raises, roles may not DELETE at all")
    func appendOnlyHolds() async throws {
        let db = try await TestDatabase.make("archiveguard")
        let store = db.store()
        defer { store.client.close() }
        try await ArchiveFixtures.populate(store, finished: 10)
        let job = try await db.query("SELECT job_id FROM ferry.jobs WHERE state = 'succeeded' LIMIT 1").rows[0].decode(UUID.self, at: 0)
        await #expect {
            try await db.query("DELETE FROM ferry.events WHERE job_id = $1", [job])
        } throws: { error in
            (error as? PostgresError)?.sqlState == "FY010"
        }
        // Markers are the archive's: no application role may write them or the archive records.
        let role = "ar_\(UInt32.random(in: 0...UInt32.max))"
        try await db.query("CREATE ROLE \(role) LOGIN IN ROLE ferry_producer, ferry_worker")
        let client = PostgresClient(configuration: PostgresConfiguration(
            connectionString: db.url.replacingOccurrences(of: "postgres@", with: "\(role)@"), poolSize: 1))
        defer { client.close() }
        for statement in [
            "DELETE FROM ferry.events WHERE job_id = '\(job)'",
            "INSERT INTO ferry.archived_jobs (job_id, archive_id, queue, state, finished_at) VALUES ('\(job)', gen_random_uuid(), 'q', 'succeeded', now())",
            "UPDATE ferry.archives SET restore_token = gen_random_uuid()",
        ] {
            await #expect {
                try await client.withConnection { try $0.execute(statement) }
            } throws: { error in
                (error as? PostgresError)?.sqlState == .insufficientPrivilege
            }
        }
        // Setting the restore flag by hand does not switch the projection off for a role.
        let restoring = try await client.withConnection { connection -> Int in
            try connection.execute("SELECT set_config('ferry.restore_token', gen_random_uuid()::text, false)")
            return try connection.query("SELECT ferry.restoring()::int").rows[0].decode(Int.self, at: 0)
        }
        #expect(restoring == 0)
        #expect(try await count(db, "SELECT count(*) FROM ferry.events WHERE job_id = $1", [job]) > 0)
    }

    @Test("archiving while workers claim and finish jobs loses nothing and duplicates nothing")
    func concurrentWithWorkers() async throws {
        let db = try await TestDatabase.make("archivelive")
        let store = db.store(poolSize: 6)
        defer { store.client.close() }
        let total = 600
        _ = try await store.enqueue((0..<total).map { _ in ArchiveFixtures.spec(batch: nil) })
        let directory = try ArchiveFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let archiver = Archiver(store: store, directory: directory, logger: ArchiveFixtures.logger)
        var files = [String]()
        try await withThrowingTaskGroup(of: [String].self) { group in
            for worker in 0..<2 {
                group.addTask {
                    while true {
                        let claimed = try await store.claim(worker: "w\(worker)", queues: ["default"], limit: 10)
                        if claimed.isEmpty { return [] }
                        _ = try await store.record(claimed.map { .succeeded($0, bytes: 1000) })
                    }
                }
            }
            group.addTask {
                var written = [String]()
                for _ in 0..<20 {
                    written += try await archiver.run(finishedBefore: Date().addingTimeInterval(5), jobsPerFile: 25).written.map(\.file)
                    // Spreads the 20 archive runs over the workers' claims (time is the point).
                    try await Task.sleep(for: .milliseconds(20))
                }
                return written
            }
            for try await batch in group { files += batch }
        }
        files += try await archiver.run(finishedBefore: Date().addingTimeInterval(5), jobsPerFile: 1000).written.map(\.file)
        var seen = Set<String>()
        var lines = 0
        for file in files {
            _ = try ArchiveFileReader.forEachJob(in: file) { line in
                lines += 1
                if case .object(let fields)? = try? JSONValue.parse(line), case .object(let job)? = fields["job"],
                   case .string(let id)? = job["job_id"] { seen.insert(id) }
            }
        }
        #expect(lines == seen.count, "no job is in two files")
        #expect(seen.count == total, "every job finished and left exactly once")
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs") == 0)
        #expect(try await count(db, "SELECT count(*) FROM ferry.events") == 0)
        #expect(try await store.projection.verify().isClean)
    }

    @Test("two archive runs at once take disjoint jobs and both finish cleanly")
    func concurrentRuns() async throws {
        let db = try await TestDatabase.make("archivetwo")
        let store = db.store(poolSize: 8)
        defer { store.client.close() }
        try await ArchiveFixtures.populate(store, finished: 300)
        let finished = try await count(
            db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'done'")
        let directory = try ArchiveFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let reports = try await withThrowingTaskGroup(of: ArchiveRunReport.self) { group in
            for _ in 0..<2 {
                group.addTask {
                    try await Archiver(store: store, directory: directory, logger: ArchiveFixtures.logger)
                        .run(finishedBefore: Date().addingTimeInterval(5), jobsPerFile: 20)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(reports.reduce(0) { $0 + $1.jobs } == finished)
        #expect(reports.allSatisfy { $0.discarded.isEmpty }, "no live writer's file is taken for a leftover")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory)
        #expect(!files.contains { $0.hasSuffix(".partial") || $0.hasSuffix(".tmp") })
        #expect(files.filter { $0.hasSuffix(".manifest.json") }.count == files.filter { $0.hasSuffix(".jsonl.gz") }.count)
        #expect(try await count(db, "SELECT count(*) FROM ferry.archives WHERE state <> 'complete'") == 0)
        #expect(try await count(db, "SELECT count(*) FROM ferry.archived_jobs") == finished)
    }
}
