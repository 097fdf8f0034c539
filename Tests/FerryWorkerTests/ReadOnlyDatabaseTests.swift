import FerryCore
import FerryStore
import FerryTestSupport
import FerryTesting
import Foundation
import Logging
import Postgres
import ServiceLifecycle
import Testing

@testable import FerryWorker

/// PostgreSQL turned read-only under a running worker (`default_transaction_read_only`, as a demoted primary
/// answers, `SQLSTATE 25006`): the worker claims nothing while it lasts, says so once in its log and on `/ready`,
/// keeps the outcomes of the jobs that finish meanwhile and writes each once when the database takes writes again.
/// A real `Worker` in process over a real database.
@Suite("a database that refuses writes", .tags(.postgres))
struct ReadOnlyDatabaseTests {
    static let jobs = 12
    static let concurrency = 4

    /// Sets (or resets) the database's default for new sessions, then ends its sessions so that every one of the
    /// worker's connections is opened again under it.
    static func setReadOnly(_ db: TestDatabase, _ readOnly: Bool) async throws {
        let admin = PostgresClient(configuration: PostgresConfiguration(connectionString: try TestDatabase.adminURL, poolSize: 1))
        defer { admin.close() }
        let name = PostgresIdentifier(db.name).quoted
        try await admin.withConnection { connection in
            try connection.execute(
                readOnly
                    ? "ALTER DATABASE \(name) SET default_transaction_read_only = on"
                    : "ALTER DATABASE \(name) RESET default_transaction_read_only")
            _ = try connection.query(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", [db.name])
        }
    }

    @Test("read-only mid-run: claims stop, /ready says why, finished outcomes are kept and written once when writable again")
    func readOnlyMidRun() async throws {
        let db = try await TestDatabase.make("readonly")
        let store = db.store()
        defer { store.client.close() }
        let log = LogRecorder()
        let gate = TestGate()
        let handler = TestHandler { _, context in
            await gate.pass()
            // A progress write while the database is read-only: skipped, the job goes on.
            try await context.reportProgress(bytesDone: 1, bytesTotal: 2, force: true)
            return JobResult(bytes: 2)
        }
        let readiness = WorkerReadiness(store: store, cacheFor: .zero)
        let worker = Worker(
            configuration: WorkerHarness.configuration(concurrency: Self.concurrency, rescueAfter: OneMinuteLease.rescueAfter), store: store,
            handlers: JobHandlers(catchAll: handler), readiness: readiness, logger: log.logger(label: "ferry.readonly-test"))
        let group = ServiceGroup(services: [worker], logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let running = Task { try await group.run() }
        do {
            _ = try await store.enqueue((0..<Self.jobs).map { _ in JobSpec.test(batch: "readonly") })
            try await eventually(timeout: .seconds(300), interval: .milliseconds(10), "\(Self.concurrency) jobs running") {
                gate.arrivals == Self.concurrency
            }
            try await Self.setReadOnly(db, true)
            try await eventually(timeout: .seconds(300), interval: .milliseconds(20), "/ready to say the database refuses writes") {
                let answer = await readiness.check()
                return !answer.ready && answer.detail.contains("refuses writes") && answer.detail.contains("25006")
            }
            // The running jobs finish while nothing can be written: their outcomes wait in the worker.
            gate.open()
            try await eventually(timeout: .seconds(300), interval: .milliseconds(10), "the finished outcomes kept") {
                worker.running.count == 0 && worker.batcher.unwrittenJobIDs.count == Self.concurrency
            }
            #expect(try await count(db, "SELECT count(*)::int FROM ferry.events WHERE type = 'claimed'") == Self.concurrency, "no claim while read-only")
            #expect(try await count(db, "SELECT count(*)::int FROM ferry.events WHERE type = 'succeeded'") == 0)
            #expect(!(await readiness.check().ready))

            try await Self.setReadOnly(db, false)
            try await eventually(timeout: .seconds(300), interval: .milliseconds(50), "every job to succeed") {
                try await count(db, "SELECT count(*)::int FROM ferry.jobs WHERE state = 'succeeded'") == Self.jobs
            }
            try await eventually(timeout: .seconds(300), interval: .milliseconds(20), "/ready to say ready again") {
                await readiness.check().ready
            }
        } catch {
            await group.triggerGracefulShutdown()
            _ = try? await running.value
            throw error
        }
        await group.triggerGracefulShutdown()
        try await running.value
        // Exactly once: one claim and one success per job, nothing rescued, nothing fenced off.
        let perJob = try await db.query(
            "SELECT count(*) FILTER (WHERE type = 'succeeded')::int, count(*) FILTER (WHERE type = 'claimed')::int FROM ferry.events GROUP BY job_id").rows
        #expect(perJob.count == Self.jobs)
        for row in perJob {
            #expect(try row.decode(Int.self, at: 0) == 1 && row.decode(Int.self, at: 1) == 1)
        }
        #expect(try await count(db, "SELECT count(*)::int FROM ferry.events WHERE type = 'rescued'") == 0)
        let lines = log.all
        #expect(lines.filter { $0.contains("the database refuses writes") }.count == 1, "said once: \(lines.filter { $0.contains("refuses") })")
        #expect(lines.contains { $0.contains("the database accepts writes again") })
        #expect(!lines.contains { $0.contains("outcomes not written") || $0.contains("could not be written") })
    }
}
