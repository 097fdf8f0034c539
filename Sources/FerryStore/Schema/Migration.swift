import Crypto
import Foundation

/// One numbered SQL file from `migrations/` or `migrations/history/`, e.g. `0028_schema_definitions.sql`.
public struct Migration: Sendable, Hashable {
    public let version: Int
    public let name: String
    public let sql: String
    /// SHA-256 of the file, hex: an applied migration must never change.
    public let checksum: String

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
        self.checksum = SHA256.hash(data: Data(sql.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// The schema snapshot beside the migrations: what `pg_dump --schema-only` prints after all of them ran.
    public static let snapshotFile = "schema.sql"

    /// Loads every `NNNN_name.sql` file of a directory and of its `history/` folder (the files the baseline stands
    /// for), sorted by number. Misnamed or duplicate numbers are errors.
    public static func load(from directory: String) throws -> [Migration] {
        var migrations = try loadFiles(in: directory)
        let history = directory + "/" + MigrationBaseline.historyFolder
        if FileManager.default.fileExists(atPath: history) {
            migrations += try loadFiles(in: history)
        }
        let versions = migrations.map(\.version)
        if Set(versions).count != versions.count {
            throw FerryStoreError(.migrationFiles, "two migration files share a number", fix: "renumber one of them")
        }
        guard !migrations.isEmpty else {
            throw FerryStoreError(
                .migrationFiles, "no migrations found in \(directory)",
                fix: "pass --migrations DIR or set FERRY_MIGRATIONS_DIR to the project's migrations/ folder")
        }
        return migrations.sorted { $0.version < $1.version }
    }

    /// The numbered files of one folder, unsorted by version.
    static func loadFiles(in directory: String) throws -> [Migration] {
        let files: [String]
        do {
            files = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw FerryStoreError(
                .migrationFiles, "migrations directory \(directory) cannot be read",
                fix: "pass --migrations DIR or set FERRY_MIGRATIONS_DIR to the project's migrations/ folder")
        }
        var migrations = [Migration]()
        // schema.sql is the snapshot of the schema the migrations produce (checked by a test) and baseline.sql the
        // schema history builds (MigrationBaseline): neither is a migration.
        for file in files.sorted() where file.hasSuffix(".sql") && file != Self.snapshotFile && file != MigrationBaseline.file {
            let stem = file.dropLast(4)
            guard let underscore = stem.firstIndex(of: "_"), let version = Int(stem[..<underscore]), version > 0 else {
                throw FerryStoreError(
                    .migrationFiles, "migration file \(file) is not named NNNN_description.sql",
                    fix: "rename it with a number prefix")
            }
            let sql = try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
            migrations.append(Migration(version: version, name: String(stem[stem.index(after: underscore)...]), sql: sql))
        }
        return migrations
    }
}
