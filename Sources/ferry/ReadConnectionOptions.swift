import ArgumentParser
import FerryStore
import Foundation

/// `--read-database-url` of the commands that only read (status, events, wait, a read-only dashboard): they may
/// read from a hot standby while everything that writes keeps using the primary's `--database-url`.
struct ReadConnectionOptions: ParsableArguments {
    @Option(
        name: .customLong("read-database-url"),
        help: ArgumentHelp(
            "PostgreSQL URL or conninfo to read from, for example a hot standby. Default: $FERRY_READ_DATABASE_URL, else the database URL.",
            valueName: "url"))
    var readDatabaseURL: String?

    /// `--read-database-url`, then `FERRY_READ_DATABASE_URL`; `nil` when neither is given (read from the primary).
    var resolvedReadDatabaseURL: String? {
        for candidate in [readDatabaseURL, ProcessInfo.processInfo.environment["FERRY_READ_DATABASE_URL"]] {
            if let candidate, !candidate.isEmpty { return candidate }
        }
        return nil
    }

    /// Where the read URL came from, for messages: the option or the variable.
    var source: String {
        readDatabaseURL?.isEmpty == false ? "--read-database-url" : "FERRY_READ_DATABASE_URL"
    }

    /// A store for reads: on the read URL when one is given, else on `connection`'s database.
    func makeStore(_ connection: ConnectionOptions, poolSize: Int = 1, applicationName: String = "ferry") -> FerryStore {
        connection.makeStore(poolSize: poolSize, applicationName: applicationName, url: resolvedReadDatabaseURL)
    }

    /// Runs `body` on a store for reads (see `makeStore`), closed when it returns: how a read command opens one.
    func withStore<T>(
        _ connection: ConnectionOptions, poolSize: Int = 1, _ body: (FerryStore) async throws -> T
    ) async throws -> T {
        let store = makeStore(connection, poolSize: poolSize)
        defer { store.client.close() }
        return try await body(store)
    }
}
