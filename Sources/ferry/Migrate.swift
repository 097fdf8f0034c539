import ArgumentParser
import FerryStore
import Logging

struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Apply pending SQL migrations (safe to run from many processes at once).",
        discussion: """
            Applies the numbered files of migrations/ in order, each once, in its own transaction, under an \
            advisory lock. Refuses to run if a file that was already applied has changed since.

            Examples:
              ferry migrate
              ferry migrate --migrations /usr/share/ferry/migrations --database-url \\
                  postgresql://admin@db/ferry
            """)

    @OptionGroup var connection: ConnectionOptions

    @Option(help: ArgumentHelp("Directory of NNNN_name.sql files. Default: $FERRY_MIGRATIONS_DIR or ./migrations.", valueName: "dir"))
    var migrations: String?

    @Flag(help: "Only check that every migration is applied; change nothing (exit 78 if not).")
    var check = false

    func run() async throws {
        try await runReporting {
            let store = connection.makeStore(poolSize: 1)
            defer { store.client.close() }
            let files = try Migration.load(from: MigrationsLocator.locate(migrations))
            let runner = MigrationRunner(client: store.client, migrations: files, logger: Logger(label: "ferry.migrate"))
            if check {
                try await runner.verifyUpToDate()
                print("schema is up to date (\(files.count) migrations)")
                return
            }
            let outcome = try await runner.migrate()
            for migration in outcome.applied {
                print("applied \(String(format: "%04d", migration.version))_\(migration.name)")
            }
            print("schema is up to date (\(outcome.applied.count) applied now, \(outcome.alreadyApplied) before)")
        }
    }
}
