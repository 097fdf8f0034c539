import Crypto
import Foundation

/// One file of `migrations/definitions/`, e.g. `505_claim_jobs.sql`: the current text of one function or view
/// (`CREATE OR REPLACE …`, its `ALTER` settings and `COMMENT`), re-applied by `ferry migrate` whenever the file changes.
///
/// Numbered migrations are history and never change; a definition is the present and is edited in place, so a
/// change to `claim_jobs` is a diff of `505_claim_jobs.sql`, not a new copy of the whole function.
public struct Definition: Sendable, Hashable {
    /// The number prefix: definitions apply in ascending order (a file may use only objects of numbered migrations
    /// and of definitions with a smaller number).
    public let order: Int
    /// The object's name, without the prefix: what `ferry.schema_definitions` records (renumbering is no change).
    public let name: String
    public let sql: String
    /// SHA-256 of the file, hex: the file is applied again when it differs from the recorded one.
    public let checksum: String

    public init(order: Int, name: String, sql: String) {
        self.order = order
        self.name = name
        self.sql = sql
        self.checksum = SHA256.hash(data: Data(sql.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// The folder of definitions inside the migrations directory.
    public static let folder = "definitions"

    /// Loads every `NNN_name.sql` file of `<migrations>/definitions`, in order. The folder must exist (an install
    /// that copied only the numbered files would otherwise leave functions silently outdated); misnamed files and
    /// duplicate numbers or names are errors.
    public static func load(fromMigrations directory: String) throws -> [Definition] {
        let folder = directory + "/" + Self.folder
        let files: [String]
        do {
            files = try FileManager.default.contentsOfDirectory(atPath: folder)
        } catch {
            throw FerryStoreError(
                .migrationFiles, "definitions directory \(folder) cannot be read",
                fix: "install migrations/definitions/ beside the numbered migrations")
        }
        var definitions = [Definition]()
        for file in files.sorted() where file.hasSuffix(".sql") {
            let stem = file.dropLast(4)
            guard let underscore = stem.firstIndex(of: "_"), let order = Int(stem[..<underscore]), order >= 0,
                  stem.index(after: underscore) < stem.endIndex
            else {
                throw FerryStoreError(
                    .migrationFiles, "definition file \(file) is not named NNN_name.sql", fix: "rename it with a number prefix")
            }
            let sql = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            definitions.append(Definition(order: order, name: String(stem[stem.index(after: underscore)...]), sql: sql))
        }
        if Set(definitions.map(\.order)).count != definitions.count {
            throw FerryStoreError(.migrationFiles, "two definition files share a number", fix: "renumber one of them")
        }
        if Set(definitions.map(\.name)).count != definitions.count {
            throw FerryStoreError(.migrationFiles, "two definition files share a name", fix: "rename or merge them")
        }
        return definitions.sorted { $0.order < $1.order }
    }
}
