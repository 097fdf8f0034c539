import FerryStore
import Foundation

/// Runs `ferry archive restore FILE`: checks the file against its manifest (or the database's record of it)
/// and brings its jobs back in one transaction.
public struct ArchiveRestorer: Sendable {
    public let store: FerryStore

    public init(store: FerryStore) {
        self.store = store
    }

    public func restore(_ path: String) async throws -> RestoreOutcome {
        let header = try ArchiveFileReader.header(of: path)
        let record = try await store.archive(header.archiveID)
        if record?.state == .restored { return .alreadyRestored }
        guard let expected = try ArchiveManifest.read(for: path)?.sha256 ?? record?.sha256 else {
            throw ArchiveError(
                .corrupt, "no checksum for \(path): neither \(ArchiveManifest.path(for: path)) nor a record in this database",
                fix: "copy the manifest next to the file")
        }
        let facts = ArchiveFileFacts(path: path, sha256: expected, bytes: record?.bytes ?? 0)
        return try await store.restoreArchive(header.archiveID, facts: facts, finishedBefore: header.finishedBefore) { emit in
            // The checksum is known only at the end: a mismatch throws inside the COPY, which keeps nothing.
            let actual = try ArchiveFileReader.forEachJob(in: path) { try emit($0) }
            guard actual.sha256 == expected else {
                throw ArchiveError(
                    .corrupt, "\(path) does not match its recorded SHA-256 (\(expected))",
                    fix: "the file is damaged: restore it from a backup; nothing was written")
            }
        }
    }
}
