import FerryProviders
import FerryStore
import Foundation
import Logging
import Postgres
import Synchronization

/// A fresh, migrated database per test, copied from a template migrated once per test process.
///
/// The server comes from `FERRY_TEST_DATABASE_URL` (set by `make test`, which starts a throwaway cluster).
public struct TestDatabase: Sendable {
    /// Connection URL of this test's own database.
    public let url: String
    public let name: String

    /// Wraps an existing database (for example on a test's private cluster).
    public init(url: String, name: String) {
        self.url = url
        self.name = name
    }

    /// The throwaway cluster's admin URL.
    public static var adminURL: String {
        get throws {
            try TestTier.refuseInFastTier("PostgreSQL")
            guard let url = ProcessInfo.processInfo.environment["FERRY_TEST_DATABASE_URL"], !url.isEmpty else {
                throw TestSupportError(
                    "FERRY_TEST_DATABASE_URL is not set: run the tests with `make test`, which starts PostgreSQL")
            }
            return url
        }
    }

    /// The repository's migrations directory.
    public static var migrationsDirectory: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("migrations").path
    }

    private static let template = TemplateGate()

    /// Creates a new migrated database.
    public static func make(_ label: String = "t") async throws -> TestDatabase {
        let admin = try adminURL
        try await template.ensure(adminURL: admin)
        let name = "ferry_\(label.lowercased().filter { $0.isLetter || $0.isNumber }.prefix(20))_\(UInt32.random(in: 0...UInt32.max))"
        let client = PostgresClient(configuration: PostgresConfiguration(connectionString: admin, poolSize: 1))
        defer { client.close() }
        var attempt = 0
        while true {
            do {
                try await client.withConnection { connection in
                    try connection.execute("CREATE DATABASE \(PostgresIdentifier(name).quoted) TEMPLATE ferry_template")
                }
                break
            } catch let error as PostgresError where error.sqlState?.code == "55006" && attempt < 50 {
                // Another test is copying the template right now.
                attempt += 1
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        return TestDatabase(url: replacingDatabase(in: admin, with: name), name: name)
    }

    /// A client for this database; `preparedStatements` nil takes a listening worker's default (on unless the
    /// environment says off), since most tests run the worker's statements.
    public func client(poolSize: Int = 4, preparedStatements: Bool? = nil) -> PostgresClient {
        PostgresClient(
            configuration: PostgresConfiguration(
                connectionString: url, poolSize: poolSize,
                preparedStatements: preparedStatements ?? PostgresConfiguration.preparedStatementsByDefault(fallback: true)))
    }

    /// A store for this database.
    public func store(poolSize: Int = 4, preparedStatements: Bool? = nil) -> FerryStore {
        FerryStore(client: client(poolSize: poolSize, preparedStatements: preparedStatements), logger: Logger(label: "test"))
    }

    /// Runs SQL as the superuser on this database.
    @discardableResult
    public func query(_ sql: String, _ binds: [any PostgresBindable] = []) async throws -> PostgresQueryResult {
        let client = self.client(poolSize: 1)
        defer { client.close() }
        return try await client.withConnection { try $0.query(sql, binds) }
    }

    public static func replacingDatabase(in url: String, with name: String) -> String {
        guard let slash = url.range(of: "/", options: .backwards), url[..<slash.lowerBound].contains("@") || url.contains("://")
        else { return url }
        var base = String(url[..<slash.upperBound])
        let rest = url[slash.upperBound...]
        let query = rest.firstIndex(of: "?").map { String(rest[$0...]) } ?? ""
        base += name + query
        return base
    }

    /// Migrates `ferry_template` once per process (and tolerates other processes doing the same).
    actor TemplateGate {
        // A shared task, not a flag: the actor is reentrant across awaits, and every caller must wait for the
        // one migration instead of starting its own.
        var preparation: Task<Void, any Error>?

        func ensure(adminURL: String) async throws {
            if preparation == nil {
                preparation = Task { try await Self.prepare(adminURL: adminURL) }
            }
            try await preparation!.value
        }

        static func prepare(adminURL: String) async throws {
            let client = PostgresClient(configuration: PostgresConfiguration(connectionString: adminURL, poolSize: 1))
            defer { client.close() }
            try await client.withConnection { connection in
                try connection.query("SELECT pg_advisory_lock(4242)")
                defer { _ = try? connection.query("SELECT pg_advisory_unlock(4242)") }
                let exists = try connection.query("SELECT 1 FROM pg_database WHERE datname = 'ferry_template'")
                if !exists.rows.isEmpty {
                    // A template from an earlier run may hold older migrations: rebuild it each process.
                    try connection.execute("DROP DATABASE ferry_template")
                }
                try connection.execute("CREATE DATABASE ferry_template")
            }
            let templateClient = PostgresClient(
                configuration: PostgresConfiguration(
                    connectionString: TestDatabase.replacingDatabase(in: adminURL, with: "ferry_template"), poolSize: 1))
            let runner = try MigrationRunner(
                client: templateClient, directory: TestDatabase.migrationsDirectory,
                providerOptions: ProviderRegistry.standard.optionCatalog, logger: Logger(label: "test.migrate"))
            try await runner.migrate()
            templateClient.close()
            // Closing is asynchronous (the connection thread finishes queued work): wait until it is gone.
            try await client.withConnection { connection in
                for _ in 0..<200 {
                    let rows = try connection.query("SELECT count(*) FROM pg_stat_activity WHERE datname = 'ferry_template'")
                    if try rows.rows[0].decode(Int.self, at: 0) == 0 { return }
                    usleep(10_000)
                }
            }
        }
    }
}

/// A test-harness problem (not a product failure).
public struct TestSupportError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
