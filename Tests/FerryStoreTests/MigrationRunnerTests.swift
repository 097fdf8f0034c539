import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Logging
import Postgres
import Testing

@Suite("migrations", .tags(.postgres))
struct MigrationRunnerTests {
    func freshDatabase() async throws -> (PostgresClient, String) {
        let admin = PostgresClient(configuration: PostgresConfiguration(connectionString: try TestDatabase.adminURL, poolSize: 1))
        defer { admin.close() }
        let name = "ferry_mig_\(UInt32.random(in: 0...UInt32.max))"
        try await admin.withConnection { try $0.execute("CREATE DATABASE \(PostgresIdentifier(name).quoted)") }
        let url = TestDatabase.replacingDatabase(in: try TestDatabase.adminURL, with: name)
        return (PostgresClient(configuration: PostgresConfiguration(connectionString: url, poolSize: 2)), url)
    }

    @Test("many migrators at once apply each file exactly once")
    func concurrentMigrators() async throws {
        let (client, _) = try await freshDatabase()
        defer { client.close() }
        let migrations = try Migration.load(from: TestDatabase.migrationsDirectory)
        let definitions = try Definition.load(fromMigrations: TestDatabase.migrationsDirectory)
        let outcomes = try await withThrowingTaskGroup(of: (migrations: Int, definitions: Int).self) { group in
            for _ in 0..<6 {
                group.addTask {
                    let own = PostgresClient(configuration: client.configuration)
                    defer { own.close() }
                    let outcome = try await MigrationRunner(
                        client: own, migrations: migrations, definitions: definitions, logger: Logger(label: "m")
                    ).migrate()
                    return (outcome.applied.count, outcome.definitions.count)
                }
            }
            var counts = [(migrations: Int, definitions: Int)]()
            for try await count in group { counts.append(count) }
            return counts
        }
        #expect(outcomes.map(\.migrations).reduce(0, +) == migrations.count)
        #expect(outcomes.map(\.definitions).reduce(0, +) == definitions.count)
        // The lock is taken per file (transaction-level, so that it works behind PgBouncer): migrators may take
        // turns, but each file is applied once and in order.
        let rows = try await client.withConnection {
            try $0.query("SELECT version FROM ferry.schema_migrations ORDER BY applied_at, version").rows
        }
        #expect(try rows.map { try $0.decode(Int.self, at: 0) } == migrations.map(\.version))
        try await MigrationRunner(client: client, migrations: migrations, definitions: definitions, logger: Logger(label: "m"))
            .verifyUpToDate()
    }

    @Test("migrate records the providers' options, rewrites them when they change and not otherwise; verify notices a difference")
    func providerOptions() async throws {
        let db = try await TestDatabase.make("migrate_options")
        let client = db.client(poolSize: 1)
        defer { client.close() }
        let migrations = try Migration.load(from: TestDatabase.migrationsDirectory)
        let definitions = try Definition.load(fromMigrations: TestDatabase.migrationsDirectory)
        // A build whose Dropbox uploads take only mode=add.
        let narrow = ProviderOptionCatalog([
            .init(scheme: "dropbox", role: .upload, provider: "Dropbox", option: ProviderOption("mode", .choice(["add"]), help: "")),
            .init(scheme: "dropbox", role: .upload, provider: "Dropbox", option: ProviderOption("tree", .boolean, help: "")),
        ])
        let runner = MigrationRunner(
            client: client, migrations: migrations, definitions: definitions, providerOptions: narrow, logger: Logger(label: "m"))
        await #expect(throws: FerryStoreError.self) { try await runner.verifyUpToDate() }
        #expect(try await runner.migrate().providerOptionsWritten)
        try await runner.verifyUpToDate()
        #expect(try await !runner.migrate().providerOptionsWritten, "unchanged declarations are not written again")
        #expect(try await db.query("SELECT count(*) FROM ferry.provider_options").rows[0].decode(Int.self, at: 0) == 2)

        try await db.query("INSERT INTO ferry.accounts (name, provider) VALUES ('box', 'dropbox')")
        do {
            _ = try await db.query("SELECT ferry.enqueue('upload', '/srv/a.jpg', 'dropbox:box:/x/', '{\"options\": {\"mode\": \"overwrite\"}}')")
            Issue.record("mode=overwrite was accepted by a database that records only mode=add")
        } catch let error as PostgresError {
            #expect(error.column == "mode" && error.hint == "Use one of add.", "\(error)")
        }
    }

    @Test("several databases of a fresh cluster migrate at once (roles are cluster-wide)")
    func concurrentDatabasesOnFreshCluster() async throws {
        try await PrivateCluster.withNew { cluster in
            let admin = PostgresClient(configuration: PostgresConfiguration(connectionString: cluster.adminURL, poolSize: 1))
            for index in 0..<4 { try await admin.withConnection { try $0.execute("CREATE DATABASE race_\(index)") } }
            admin.close()
            let directory = TestDatabase.migrationsDirectory
            let outcomes = try await withThrowingTaskGroup(of: MigrationRunner.Outcome.self) { group in
                for index in 0..<4 {
                    group.addTask {
                        let url = TestDatabase.replacingDatabase(in: cluster.adminURL, with: "race_\(index)")
                        let client = PostgresClient(configuration: PostgresConfiguration(connectionString: url, poolSize: 1))
                        defer { client.close() }
                        return try await MigrationRunner(client: client, directory: directory, logger: Logger(label: "m")).migrate()
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            // Each database got the whole schema from the baseline, and the roles exist once for the cluster.
            let migrations = try Migration.load(from: directory)
            #expect(outcomes.count == 4 && outcomes.allSatisfy { $0.baselineApplied && $0.applied == migrations })
            let check = PostgresClient(configuration: PostgresConfiguration(connectionString: cluster.adminURL, poolSize: 1))
            defer { check.close() }
            let roles = try await check.withConnection {
                try $0.query("SELECT count(*) FROM pg_roles WHERE rolname IN ('ferry_reader', 'ferry_producer', 'ferry_worker')").rows[0]
                    .decode(Int.self, at: 0)
            }
            #expect(roles == 3)
            for index in 0..<4 {
                let url = TestDatabase.replacingDatabase(in: cluster.adminURL, with: "race_\(index)")
                let client = PostgresClient(configuration: PostgresConfiguration(connectionString: url, poolSize: 1))
                defer { client.close() }
                try await MigrationRunner(client: client, directory: directory, logger: Logger(label: "m")).verifyUpToDate()
            }
        }
    }

    @Test("a changed applied migration and an unknown applied migration are refused")
    func checksumsGuardHistory() async throws {
        let (client, _) = try await freshDatabase()
        defer { client.close() }
        var migrations = try Migration.load(from: TestDatabase.migrationsDirectory)
        try await MigrationRunner(client: client, migrations: migrations, definitions: [], logger: Logger(label: "m")).migrate()
        let original = migrations[1]
        migrations[1] = Migration(version: original.version, name: original.name, sql: original.sql + "\n-- edited")
        await #expect {
            try await MigrationRunner(client: client, migrations: migrations, definitions: [], logger: Logger(label: "m")).migrate()
        } throws: { error in
            (error as? FerryStoreError)?.code == .migrationChanged
        }
        let older = Array(try Migration.load(from: TestDatabase.migrationsDirectory).dropLast())
        await #expect {
            try await MigrationRunner(client: client, migrations: older, definitions: [], logger: Logger(label: "m")).migrate()
        } throws: { error in
            (error as? FerryStoreError)?.code == .migrationUnknown
        }
    }

    @Test("a failing migration leaves no trace")
    func failingMigrationRollsBack() async throws {
        let (client, _) = try await freshDatabase()
        defer { client.close() }
        var migrations = try Migration.load(from: TestDatabase.migrationsDirectory)
        migrations.append(Migration(version: 9999, name: "broken", sql: "CREATE TABLE ferry.half (x int); SELECT 1/0;"))
        await #expect(throws: PostgresError.self) {
            try await MigrationRunner(client: client, migrations: migrations, definitions: [], logger: Logger(label: "m")).migrate()
        }
        let check = try await client.withConnection {
            try $0.query("SELECT to_regclass('ferry.half') IS NULL, (SELECT count(*) FROM ferry.schema_migrations WHERE version = 9999)").rows[0]
        }
        #expect(try check.decode(Bool.self, at: 0))
        #expect(try check.decode(Int.self, at: 1) == 0)
    }
}
