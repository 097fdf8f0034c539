import ArgumentParser
import Foundation
import Logging
import Postgres

#if canImport(Glibc)
    import Glibc
#endif

/// Reads completion values from the database while the user waits at a TAB: quickly, silently, with a reader's
/// rights.
///
/// The shell runs `ferry ---completion …` for the values of a batch, queue, account, schedule or job argument (the
/// argument parser's hidden entry point for custom completions). That process does nothing else, so it may give
/// up its standard error: whatever goes wrong (no database, a wrong password, no schema yet, a slow server) the
/// answer is an empty list, exit 0, and nothing on the terminal beneath the user's prompt.
enum CompletionReader {
    /// The whole answer's bound in seconds: 3, or `FERRY_COMPLETION_TIMEOUT` (1–60) for a database behind a slow
    /// link. A TAB that hangs is worse than one that offers nothing.
    static var deadlineSeconds: Int {
        guard let text = ProcessInfo.processInfo.environment["FERRY_COMPLETION_TIMEOUT"], let seconds = Int(text),
            (1...60).contains(seconds)
        else { return 3 }
        return seconds
    }
    /// The whole answer's bound, whatever the URL or `PGCONNECT_TIMEOUT` say about connecting.
    static var deadline: Duration { .seconds(deadlineSeconds) }
    /// libpq's `connect_timeout`, in seconds: two thirds of the deadline (2 s of 3).
    static var connectTimeoutSeconds: Int { max(1, deadlineSeconds * 2 / 3) }
    /// The statement's own bound (`statement_timeout`, lock waits included): a third of the deadline (1 s of 3).
    static var statementTimeoutMilliseconds: Int { deadlineSeconds * 1000 / 3 }

    /// The values of `source` starting with `prefix` (the word typed so far, as the shell passes it), on the
    /// database the command would use: `--database-url` when it is on the command line as plain text, else
    /// `FERRY_DATABASE_URL`, else `DATABASE_URL`, else libpq's `PG*` variables.
    static func values(_ source: CompletionSource, prefix: String, words: [String]) async -> [String] {
        silenceStandardError()
        let prefix = unquoted(prefix)
        guard let statement = source.statement(prefix: prefix) else { return [] }
        let configuration = PostgresConfiguration(
            connectionString: databaseURL(in: words), applicationName: "ferry-completion",
            connectTimeoutSeconds: connectTimeoutSeconds, poolSize: 1)
        let client = PostgresClient(
            configuration: configuration, logger: Logger(label: "ferry.completion", factory: { _ in SwiftLogNoOpLogHandler() }))
        defer { client.close() }
        return await CompletionDeadline.first(within: deadline, otherwise: []) {
            do {
                return try await client.withConnection { connection in
                    try read(statement, on: connection)
                }
            } catch {
                return []
            }
        }
    }

    /// One read-only transaction as `ferry_reader` when this login may become it (a superuser or a member of the
    /// role), else as the login itself. `SET LOCAL` only: nothing outlives the transaction, so a server
    /// connection behind PgBouncer goes back to its pool as it came.
    static func read(_ statement: (sql: String, binds: [any PostgresBindable]), on connection: PostgresConnection) throws -> [String] {
        try connection.execute(
            "BEGIN READ ONLY; SET LOCAL statement_timeout = \(statementTimeoutMilliseconds); SAVEPOINT reader")
        do {
            try connection.execute("SET LOCAL ROLE ferry_reader")
        } catch {
            // Not a member of ferry_reader (or no such role): read as the login, still read-only and bounded.
            try connection.execute("ROLLBACK TO SAVEPOINT reader")
        }
        let rows = try connection.query(statement.sql, statement.binds).rows
        try connection.execute("COMMIT")
        return try rows.map { try $0.decode(String.self, at: 0) }
    }

    /// The database URL among the words typed, when given as plain text (`--database-url URL` or
    /// `--database-url=URL`); a value the shell would still expand (`"$URL"`) is left to the environment.
    static func databaseURL(in words: [String]) -> String? {
        var typed: String?
        for (index, word) in words.enumerated() {
            if word == "--database-url", index + 1 < words.count {
                typed = words[index + 1]
            } else if word.hasPrefix("--database-url=") {
                typed = String(word.dropFirst("--database-url=".count))
            }
        }
        if let text = typed.map(unquoted), !text.isEmpty, !text.contains("$"), !text.contains("`") {
            return text
        }
        let environment = ProcessInfo.processInfo.environment
        for candidate in [environment["FERRY_DATABASE_URL"], environment["DATABASE_URL"]] {
            if let candidate, !candidate.isEmpty { return candidate }
        }
        return nil
    }

    /// The word being completed. The argument parser cuts `typed` from the last word at the cursor; when the
    /// cursor is on an earlier word (completing mid-line in bash), that word is the one to complete.
    static func word(_ words: [String], _ index: Int, typed: String) -> String {
        words.indices.contains(index) && index != words.count - 1 ? words[index] : typed
    }

    /// A word as the shell passed it, without its quotes and backslashes (`'trip` while typing `'trip…'`,
    /// `trip\ 2`): see ``CompletionWords/typed(_:for:version:)``.
    static func unquoted(_ word: String) -> String {
        CompletionWords.typed(word, for: CompletionShell.requesting, version: CompletionShell.requestingVersion)
    }

    /// Points standard error at /dev/null: libpq writes some warnings there itself (a `.pgpass` readable by
    /// others), and a completion must never print beneath the prompt.
    static func silenceStandardError() {
        let null = open("/dev/null", O_WRONLY)
        guard null >= 0 else { return }
        dup2(null, STDERR_FILENO)
        close(null)
    }
}
