import FerryStore
import FerryTestSupport
import Foundation
import Testing

/// migrations/schema.sql is the schema the migrations and definitions produce, as pg_dump prints it without its
/// framing (scripts/schema-dump.sh): reviewers read the whole schema in one place, and a migration that changes
/// more (or less) than its author thought shows here.
@Suite("schema snapshot", .tags(.postgres))
struct SchemaSnapshotTests {
    @Test("the schema version this build expects (ferry --version) is the newest migration it ships")
    func schemaVersionIsNewestMigration() throws {
        let migrations = try Migration.load(from: TestDatabase.migrationsDirectory)
        #expect(migrations.map(\.version).max() == FerryRelease.schemaVersion)
    }

    @Test("a database migrated from scratch dumps exactly migrations/schema.sql")
    func snapshotMatches() async throws {
        let db = try await TestDatabase.make("snapshot")
        try await Self.expectSnapshot(of: db.url)
    }

    /// The schema of `url` as `scripts/schema-dump.sh` prints it (pg_dump, normalized).
    static func dump(_ url: String) async throws -> String {
        let script = URL(fileURLWithPath: TestDatabase.migrationsDirectory).deletingLastPathComponent()
            .appendingPathComponent("scripts/schema-dump.sh").path
        let dumped = try await ChildProcess.run("/bin/bash", [script, url])
        #expect(dumped.status == 0, "\(dumped.stderr)")
        return dumped.stdout
    }

    /// Expects the schema of `url` to be exactly migrations/schema.sql; a failure names the first differing line.
    static func expectSnapshot(of url: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let dumped = try await dump(url)
        let snapshot = try String(
            contentsOfFile: TestDatabase.migrationsDirectory + "/" + Migration.snapshotFile, encoding: .utf8)
        let (dumpedLines, snapshotLines) = (dumped.split(separator: "\n", omittingEmptySubsequences: false),
                                            snapshot.split(separator: "\n", omittingEmptySubsequences: false))
        let first = zip(dumpedLines, snapshotLines).enumerated().first { $0.element.0 != $0.element.1 }
        let matches = dumped == snapshot  // a Bool, so a failure prints the first difference, not both dumps
        #expect(
            matches,
            """
            migrations and migrations/schema.sql differ\(first.map { " at line \($0.offset + 1): migrated \"\($0.element.0)\", snapshot \"\($0.element.1)\"" } ?? " in length");
            run scripts/schema-snapshot.sh, review the diff and commit it
            """, sourceLocation: sourceLocation)
    }
}
