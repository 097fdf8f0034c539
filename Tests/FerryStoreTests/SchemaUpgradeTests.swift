import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Logging
import Postgres
import Testing

/// Databases migrated before functions and views became definitions (schema 24–27) upgrade in place, with their
/// data, to exactly the schema a fresh database gets.
@Suite("schema upgrade", .tags(.postgres))
struct SchemaUpgradeTests {
    /// A new, empty database on the test cluster.
    static func emptyDatabase() async throws -> TestDatabase {
        let admin = PostgresClient(configuration: PostgresConfiguration(connectionString: try TestDatabase.adminURL, poolSize: 1))
        defer { admin.close() }
        let name = "ferry_upgrade_\(UInt32.random(in: 0...UInt32.max))"
        try await admin.withConnection { try $0.execute("CREATE DATABASE \(PostgresIdentifier(name).quoted)") }
        return TestDatabase(url: TestDatabase.replacingDatabase(in: try TestDatabase.adminURL, with: name), name: name)
    }

    /// Each job's projected row, whole, as text.
    static func jobs(_ db: TestDatabase) async throws -> [String] {
        try await db.query("SELECT j::text FROM ferry.jobs j ORDER BY job_id").rows.map { try $0.decode(String.self, at: 0) }
    }

    @Test("a schema-24 database with jobs running and finished upgrades: same schema as fresh, projection verified")
    func upgradeFromSchema24() async throws {
        let db = try await Self.emptyDatabase()
        let store = db.store()
        defer { store.client.close() }
        let migrations = try Migration.load(from: TestDatabase.migrationsDirectory)
        let definitions = try Definition.load(fromMigrations: TestDatabase.migrationsDirectory)
        let old = try await MigrationRunner(
            client: store.client, migrations: migrations.filter { $0.version <= 24 }, definitions: [], logger: Logger(label: "m")
        ).migrate()
        #expect(old.applied.count == 24)
        #expect(try await store.appliedSchemaVersion() == 24)

        // Work as schema 24 saw it: jobs from SQL and from the CLI's path, claims, progress, finishes. This build's
        // store records outcomes through ferry.record_outcomes, a definition schema 24 did not have: it is installed
        // here as the upgrade will install it (its events and projection are schema 24's).
        let recordOutcomes = try String(
            contentsOfFile: TestDatabase.migrationsDirectory + "/definitions/506_record_outcomes.sql", encoding: .utf8)
        try await store.client.withConnection { try $0.execute(recordOutcomes) }
        for index in 0..<3 {
            _ = try await db.query(
                "SELECT ferry.enqueue('fetch', $1, '/srv/in/', $2::jsonb)",
                ["https://example.com/sql-\(index).jpg", #"{"batch": "from-sql"}"#])
        }
        _ = try await store.enqueue((0..<6).map { _ in StoreFixtures.fetchSpec(batch: "files", queue: "files") })
        let files = try await store.claim(worker: "w-old", queues: ["files"], limit: 4)
        #expect(files.count == 4)
        let accepted = try await store.record([
            .progress(files[0], bytesDone: 500, bytesTotal: 1000), .progress(files[1], bytesDone: 1000, bytesTotal: 1000),
            .succeeded(files[2], bytes: 1000), .failed(files[3], error: "gone"),
        ]).accepted
        #expect(accepted.count == 4)
        let sql = try await store.claim(worker: "w-old", queues: ["default"], limit: 1)
        #expect(try await store.record([.succeeded(try #require(sql.first), bytes: 10)]).accepted.count == 1)
        let before = try await Self.jobs(db)
        #expect(before.count == 9)

        let upgrade = try await MigrationRunner(
            client: store.client, migrations: migrations, definitions: definitions, logger: Logger(label: "m")
        ).migrate()
        #expect(upgrade.applied.map(\.version) == migrations.map(\.version).filter { $0 > 24 })
        #expect(upgrade.definitions.count == definitions.count)
        #expect(try await store.appliedSchemaVersion() == FerryRelease.schemaVersion)
        try await MigrationRunner(client: store.client, migrations: migrations, definitions: definitions, logger: Logger(label: "m"))
            .verifyUpToDate()
        try await SchemaSnapshotTests.expectSnapshot(of: db.url)
        #expect(try await Self.jobs(db) == before)
        let report = try await store.projection.verify()
        #expect(report.isClean, "\(report)")
        #expect(report.jobsChecked == 9)

        // The upgraded database goes on working: the running jobs finish, the rest are claimed and finish.
        #expect(try await store.record([.succeeded(files[0], bytes: 1000), .succeeded(files[1], bytes: 1000)]).accepted.count == 2)
        let rest = try await store.claim(worker: "w-new", queues: ["files", "default"], limit: 10)
        #expect(rest.count == 4)
        #expect(try await store.record(rest.map { .succeeded($0, bytes: 1) }).accepted.count == 4)
        let after = try await store.projection.verify()
        #expect(after.isClean, "\(after)")
        let states = try await db.query("SELECT state, count(*)::int FROM ferry.jobs GROUP BY state ORDER BY state").rows
            .map { "\(try $0.decode(String.self, at: 0)) \(try $0.decode(Int.self, at: 1))" }
        #expect(states == ["failed 1", "succeeded 8"])
    }
}
