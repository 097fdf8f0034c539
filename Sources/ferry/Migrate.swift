import ArgumentParser
import FerryCore
import FerryProviders
import FerryStore
import Logging

struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Apply pending SQL migrations (safe to run from many processes at once).",
        discussion: """
            Applies the numbered files of migrations/ in order, each once, in its own transaction, under an \
            advisory lock (a database without migrations gets baseline.sql in place of the files of \
            migrations/history/); then the files of migrations/definitions/ (one function or view each) whose text \
            changed since they were last applied. Records the options each provider takes \
            (ferry.provider_options), which ferry.enqueue checks, when they changed. Refuses to run if a numbered file that was already applied has \
            changed since, or if the database is newer than this build.

            Examples:
              ferry migrate
              ferry migrate --migrations /usr/share/ferry/migrations --database-url \\
                  postgresql://admin@db/ferry
            """)

    @OptionGroup var connection: ConnectionOptions

    @Option(help: ArgumentHelp(
            "Directory of NNNN_name.sql files and definitions/. Default: $FERRY_MIGRATIONS_DIR or ./migrations.",
            valueName: "dir"), completion: .directory)
    var migrations: String?

    @Flag(help: "Only check that every migration is applied; change nothing (exit 78 if not).")
    var check = false

    @Flag(help: "Print JSON: the migrations applied now and the schema version.")
    var json = false

    @Flag(help: "Print each migration and definition applied, not only the summary.")
    var verbose = false

    func run() async throws {
        try await runReporting {
            return try await connection.withStore { store in
                let directory = MigrationsLocator.locate(migrations)
                let files = try Migration.load(from: directory)
                let definitions = try Definition.load(fromMigrations: directory)
                let baseline = try MigrationBaseline.load(fromMigrations: directory)
                let runner = MigrationRunner(
                    client: store.client, migrations: files, definitions: definitions,
                    providerOptions: ProviderRegistry.standard.optionCatalog, baseline: baseline, logger: Logger(label: "ferry.migrate"))
                let newest = Int64(files.map(\.version).max() ?? 0)
                if check {
                    try await runner.verifyUpToDate()
                    if json {
                        print(JSONValue.object([
                            "up_to_date": .bool(true), "schema_version": .int(newest), "migrations": .int(Int64(files.count)),
                            "definitions": .int(Int64(definitions.count)),
                        ]).jsonText)
                    } else {
                        print("schema is up to date (\(files.count) migrations, \(definitions.count) definitions)")
                    }
                    return
                }
                let outcome = try await runner.migrate()
                if json {
                    print(JSONValue.object([
                        "up_to_date": .bool(true), "schema_version": .int(newest),
                        "applied": .array(outcome.applied.map { .object(["version": .int(Int64($0.version)), "name": .string($0.name)]) }),
                        "already_applied": .int(Int64(outcome.alreadyApplied)),
                        "definitions_applied": .array(outcome.definitions.map { .object(["order": .int(Int64($0.order)), "name": .string($0.name)]) }),
                        "provider_options_written": .bool(outcome.providerOptionsWritten),
                    ]).jsonText)
                    return
                }
                if verbose {
                    // A fresh database gets the baseline in place of history's files, which it records as applied.
                    let history = outcome.baselineApplied ? Set(baseline?.covers ?? []) : []
                    if let last = history.map(\.version).max() {
                        print("applied \(MigrationBaseline.file) (history 0001–\(String(format: "%04d", last)))")
                    }
                    for migration in outcome.applied where !history.contains(migration) {
                        print("applied \(String(format: "%04d", migration.version))_\(migration.name)")
                    }
                    for definition in outcome.definitions {
                        print("applied definitions/\(String(format: "%03d", definition.order))_\(definition.name)")
                    }
                }
                // One line: a fresh database has 41 migrations and 67 definitions, which --verbose lists.
                print(
                    "schema \(newest) is up to date (\(outcome.applied.count) migrations applied now, \(outcome.alreadyApplied) before; "
                        + "\(outcome.definitions.count) of \(definitions.count) definitions applied now"
                        + (outcome.providerOptionsWritten ? "; the providers' options recorded)" : ")"))
            }
        }
    }
}
