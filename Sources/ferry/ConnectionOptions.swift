import ArgumentParser
import FerryStore
import Foundation
import Logging
import Postgres

/// Options every database command shares.
struct ConnectionOptions: ParsableArguments {
    @Option(
        name: .customLong("database-url"),
        help: ArgumentHelp(
            "PostgreSQL URL or conninfo. Default: $FERRY_DATABASE_URL, then $DATABASE_URL, then libpq's PG* variables.",
            valueName: "url"))
    var databaseURL: String?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.",
        completion: CompletionValues.logLevel)
    var logLevel: String?

    /// `--database-url`, then `FERRY_DATABASE_URL`, then `DATABASE_URL`, then libpq defaults (`nil`).
    var resolvedDatabaseURL: String? {
        let environment = ProcessInfo.processInfo.environment
        for candidate in [databaseURL, environment["FERRY_DATABASE_URL"], environment["DATABASE_URL"]] {
            if let candidate, !candidate.isEmpty { return candidate }
        }
        return nil
    }

    /// A store on the resolved database URL, or on `url` when given (a read command's `--read-database-url`).
    func makeStore(poolSize: Int = 2, applicationName: String = "ferry", url: String? = nil) -> FerryStore {
        LoggingBootstrap.bootstrap(level: logLevel)
        let logger = Logger(label: "ferry")
        var configuration = PostgresConfiguration(
            connectionString: url ?? resolvedDatabaseURL, applicationName: applicationName, poolSize: poolSize)
        configuration.connectDeadline = DatabaseWait.attemptDeadline
        let client = PostgresClient(configuration: configuration, logger: logger)
        return FerryStore(client: client, logger: logger)
    }
}

extension ConnectionOptions {
    /// A store for a command that writes: refused (exit 78) unless the database has this build's schema.
    func makeCurrentStore(poolSize: Int = 2, applicationName: String = "ferry") async throws -> FerryStore {
        let store = makeStore(poolSize: poolSize, applicationName: applicationName)
        do {
            try await store.requireCurrentSchema()
        } catch {
            store.client.close()
            throw error
        }
        return store
    }

    /// Runs `body` on a store (of one connection unless told), closed when it returns: how a command opens one.
    /// `current`: the command writes, so the database must have this build's schema (exit 78 otherwise).
    func withStore<T>(
        current: Bool = false, poolSize: Int = 1, _ body: (FerryStore) async throws -> T
    ) async throws -> T {
        let store = current ? try await makeCurrentStore(poolSize: poolSize) : makeStore(poolSize: poolSize)
        defer { store.client.close() }
        return try await body(store)
    }
}
