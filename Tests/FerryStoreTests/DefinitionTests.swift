import FerryStore
import FerryTestSupport
import Foundation
import Logging
import Postgres
import Testing

/// migrations/definitions/: one file per function or view, applied again when its text changes, so the next change
/// to a function is a diff of its file.
@Suite("migration definitions", .tags(.postgres))
struct DefinitionTests {
    /// A copy of the repository's migrations directory, to edit.
    static func copyOfMigrations() throws -> String {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-migrations-\(UUID().uuidString)").path
        try FileManager.default.copyItem(atPath: TestDatabase.migrationsDirectory, toPath: copy)
        return copy
    }

    @Test("a changed definition is applied again, alone; the older text is refused afterwards, not rolled back to")
    func changedDefinitionIsApplied() async throws {
        let db = try await TestDatabase.make("definition")
        let client = db.client(poolSize: 1)
        defer { client.close() }
        let directory = try Self.copyOfMigrations()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let original = try MigrationRunner(client: client, directory: TestDatabase.migrationsDirectory, logger: Logger(label: "m"))
        #expect(try await original.migrate().definitions.isEmpty)

        let file = try #require(
            try FileManager.default.contentsOfDirectory(atPath: directory + "/" + Definition.folder)
                .first { $0.hasSuffix("_claim_jobs.sql") })
        let path = directory + "/" + Definition.folder + "/" + file
        let marker = "-- edited by DefinitionTests"
        // Inside the body, so the function's text in the catalog shows the change.
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("\nDECLARE\n"))
        try text.replacingOccurrences(of: "\nDECLARE\n", with: "\nDECLARE\n    \(marker)\n")
            .write(toFile: path, atomically: true, encoding: .utf8)
        let edited = try MigrationRunner(client: client, directory: directory, logger: Logger(label: "m"))
        await #expect { try await edited.verifyUpToDate() } throws: { ($0 as? FerryStoreError)?.code == .notMigrated }

        let outcome = try await edited.migrate()
        #expect(outcome.applied.isEmpty)
        #expect(outcome.definitions.map(\.name) == ["claim_jobs"])
        try await edited.verifyUpToDate()
        let body = try await client.withConnection {
            try $0.query("SELECT pg_get_functiondef('ferry.claim_jobs'::regproc)").rows[0].decode(String.self, at: 0)
        }
        #expect(body.contains(marker))
        let recorded = try await client.withConnection {
            try $0.query("SELECT checksum FROM ferry.schema_definitions WHERE name = $1 ORDER BY applied_at DESC", ["claim_jobs"])
                .rows.map { try $0.decode(String.self, at: 0) }
        }
        let new = try #require(edited.definitions.first { $0.name == "claim_jobs" })
        let old = try #require(original.definitions.first { $0.name == "claim_jobs" })
        #expect(new.checksum != old.checksum)
        #expect(recorded == [new.checksum, old.checksum])
        #expect(try await edited.migrate().definitions.isEmpty)

        // The repository's text is now older than the database's: a build carrying it is refused.
        await #expect { try await original.migrate() } throws: { ($0 as? FerryStoreError)?.code == .migrationUnknown }
        await #expect { try await original.verifyUpToDate() } throws: { ($0 as? FerryStoreError)?.code == .migrationUnknown }
    }

    @Test("every function, aggregate and view of the ferry schema is created by a definition, which only replaces")
    func everyObjectHasItsDefinition() async throws {
        let db = try await TestDatabase.make("definitions")
        let rows = try await db.query(
            """
            SELECT proname FROM pg_proc WHERE pronamespace = 'ferry'::regnamespace
            UNION
            SELECT relname FROM pg_class WHERE relnamespace = 'ferry'::regnamespace AND relkind IN ('v', 'm')
            """
        ).rows
        let objects = Set(try rows.map { try $0.decode(String.self, at: 0) })
        let replaced = try Regex(#"(?i)\bCREATE\s+OR\s+REPLACE\s+(?:FUNCTION|AGGREGATE|VIEW)\s+ferry\.(\w+)"#)
        let plain = try Regex(#"(?i)\bCREATE\s+(?:FUNCTION|AGGREGATE|VIEW)\b"#)
        var defined = Set<String>()
        for definition in try Definition.load(fromMigrations: TestDatabase.migrationsDirectory) {
            let names = definition.sql.matches(of: replaced).compactMap { $0.output[1].substring.map(String.init) }
            #expect(!names.isEmpty, "\(definition.name) creates no function or view")
            #expect(definition.sql.firstMatch(of: plain) == nil, "\(definition.name) must CREATE OR REPLACE: it runs again")
            defined.formUnion(names)
        }
        #expect(
            defined == objects,
            "only in the database: \(objects.subtracting(defined).sorted()); only in files: \(defined.subtracting(objects).sorted())")
    }
}
