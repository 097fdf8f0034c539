import FerryStore
import FerryTestSupport
import Foundation
import Logging
import Postgres
import Testing

/// migrations/baseline.sql stands for migrations/history/ (0001–0027): a fresh database applies it instead of
/// replaying history, and must end exactly where replaying history ends; a database migrated before the squash
/// still upgrades by replaying the history files it lacks.
@Suite("migration baseline", .tags(.postgres))
struct MigrationBaselineTests {
    static let directory = TestDatabase.migrationsDirectory

    /// Each recorded migration as "version name checksum", in order.
    static func recorded(_ db: TestDatabase) async throws -> [String] {
        try await db.query("SELECT version || ' ' || name || ' ' || checksum FROM ferry.schema_migrations ORDER BY version")
            .rows.map { try $0.decode(String.self, at: 0) }
    }

    @Test("a database built from the baseline and one built from history, each with the later files, dump the same schema")
    func baselineEqualsHistory() async throws {
        let migrations = try Migration.load(from: Self.directory)
        let definitions = try Definition.load(fromMigrations: Self.directory)
        let baseline = try #require(try MigrationBaseline.load(fromMigrations: Self.directory))
        #expect(baseline.covers.map(\.version) == Array(1...27))

        let fromBaseline = try await SchemaUpgradeTests.emptyDatabase()
        let baselineClient = fromBaseline.client(poolSize: 1)
        defer { baselineClient.close() }
        let outcome = try await MigrationRunner(client: baselineClient, directory: Self.directory, logger: Logger(label: "m")).migrate()
        #expect(outcome.baselineApplied)
        #expect(outcome.applied.map(\.version) == migrations.map(\.version))

        let fromHistory = try await SchemaUpgradeTests.emptyDatabase()
        let historyClient = fromHistory.client(poolSize: 1)
        defer { historyClient.close() }
        let replayed = try await MigrationRunner(
            client: historyClient, migrations: migrations, definitions: definitions, logger: Logger(label: "m")
        ).migrate()
        #expect(!replayed.baselineApplied)
        #expect(replayed.applied.map(\.version) == migrations.map(\.version))

        let baselineDump = try await SchemaSnapshotTests.dump(fromBaseline.url)
        let historyDump = try await SchemaSnapshotTests.dump(fromHistory.url)
        let first = zip(baselineDump.split(separator: "\n"), historyDump.split(separator: "\n")).enumerated()
            .first { $0.element.0 != $0.element.1 }
        let same = baselineDump == historyDump  // a Bool, so a failure prints the first difference, not both dumps
        #expect(
            same,
            "baseline and history differ\(first.map { " at line \($0.offset + 1): \"\($0.element.0)\" vs \"\($0.element.1)\"" } ?? " in length"); run scripts/migration-baseline.sh")
        // Recorded alike, so nothing later can tell the two apart (the runner checks these checksums).
        #expect(try await Self.recorded(fromBaseline) == (try await Self.recorded(fromHistory)))
        try await MigrationRunner(client: baselineClient, directory: Self.directory, logger: Logger(label: "m")).verifyUpToDate()
    }

    @Test("ferry migrate upgrades databases migrated before the squash (schema 10 and 27) by replaying history", arguments: [10, 27])
    func upgradeFromOldVersion(version: Int) async throws {
        let db = try await SchemaUpgradeTests.emptyDatabase()
        let store = db.store(poolSize: 1)
        defer { store.client.close() }
        let migrations = try Migration.load(from: Self.directory)
        let old = try await MigrationRunner(
            client: store.client, migrations: migrations.filter { $0.version <= version }, definitions: [], logger: Logger(label: "m")
        ).migrate()
        #expect(old.applied.count == version)
        #expect(!old.baselineApplied)
        // A job from that time, so the upgrade meets data as well.
        _ = try await store.enqueue([StoreFixtures.fetchSpec(batch: "old", queue: "files")])

        // What ferry migrate runs: every file of the directory, the baseline included, which must stay unused here.
        let upgrade = try await MigrationRunner(client: store.client, directory: Self.directory, logger: Logger(label: "m")).migrate()
        #expect(!upgrade.baselineApplied)
        #expect(upgrade.applied.map(\.version) == migrations.map(\.version).filter { $0 > version })
        #expect(try await store.appliedSchemaVersion() == FerryRelease.schemaVersion)
        try await SchemaSnapshotTests.expectSnapshot(of: db.url)
        #expect(try await db.query("SELECT count(*)::int FROM ferry.jobs").rows[0].decode(Int.self, at: 0) == 1)
        let report = try await store.projection.verify()
        #expect(report.isClean, "\(report)")
    }
}

/// Loading the baseline and history from a migrations directory (no database).
@Suite("migration baseline files", .tags(.fast))
struct MigrationBaselineFileTests {
    static func folder(history: [String: String], baseline: String?, top: [String: String] = ["0028_next.sql": "SELECT 28;"]) throws -> String {
        let dir = try temporaryFolder("baseline")
        for (name, sql) in top { try sql.write(toFile: dir + "/" + name, atomically: true, encoding: .utf8) }
        if !history.isEmpty {
            try FileManager.default.createDirectory(atPath: dir + "/history", withIntermediateDirectories: true)
            for (name, sql) in history { try sql.write(toFile: dir + "/history/" + name, atomically: true, encoding: .utf8) }
        }
        if let baseline { try baseline.write(toFile: dir + "/baseline.sql", atomically: true, encoding: .utf8) }
        return dir
    }

    @Test("Migration.load holds the history files and the later ones in order; the baseline stands for history alone")
    func loadsBoth() throws {
        let dir = try Self.folder(history: ["0002_b.sql": "SELECT 2;", "0001_a.sql": "SELECT 1;"], baseline: "SELECT 'base';")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(try Migration.load(from: dir).map(\.version) == [1, 2, 28])
        let baseline = try #require(try MigrationBaseline.load(fromMigrations: dir))
        #expect(baseline.covers.map(\.name) == ["a", "b"])
        #expect(baseline.sql == "SELECT 'base';")
    }

    @Test("a directory without history has no baseline; half an install (one without the other) is refused naming the fix")
    func incompleteInstall() throws {
        let plain = try Self.folder(history: [:], baseline: nil)
        defer { try? FileManager.default.removeItem(atPath: plain) }
        #expect(try MigrationBaseline.load(fromMigrations: plain) == nil)

        let noHistory = try Self.folder(history: [:], baseline: "SELECT 1;")
        defer { try? FileManager.default.removeItem(atPath: noHistory) }
        let missingHistory = #expect(throws: FerryStoreError.self) { try MigrationBaseline.load(fromMigrations: noHistory) }
        #expect(missingHistory?.code == .migrationFiles)
        #expect(missingHistory?.fix?.contains("migrations/history/") == true)

        let noBaseline = try Self.folder(history: ["0001_a.sql": "SELECT 1;"], baseline: nil)
        defer { try? FileManager.default.removeItem(atPath: noBaseline) }
        let missingBaseline = #expect(throws: FerryStoreError.self) { try MigrationBaseline.load(fromMigrations: noBaseline) }
        #expect(missingBaseline?.code == .migrationFiles)
        #expect(missingBaseline?.fix?.contains("baseline.sql") == true)
    }

    @Test("a number both in history and after it is refused")
    func duplicateAcrossHistory() throws {
        let dir = try Self.folder(history: ["0028_old.sql": "SELECT 1;"], baseline: "SELECT 1;")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let error = #expect(throws: FerryStoreError.self) { try Migration.load(from: dir) }
        #expect(error?.code == .migrationFiles)
    }

    @Test("the repository's history is 0001–0027 and every later numbered file sits beside the baseline")
    func repositoryLayout() throws {
        let baseline = try #require(try MigrationBaseline.load(fromMigrations: TestDatabase.migrationsDirectory))
        #expect(baseline.covers.map(\.version) == Array(1...27))
        let later = try Migration.load(from: TestDatabase.migrationsDirectory).filter { $0.version > 27 }
        #expect(later.first?.version == 28)
        #expect(baseline.sql.hasPrefix("-- GENERATED by scripts/migration-baseline.sh"))
    }
}
