import FerryStore
import Foundation

/// Runs `ferry archive restore FILE`: checks the file against the database's record of it (its manifest is
/// only a cross-check) and brings its jobs back in one transaction, which checks the content in full.
///
/// The file is not trusted: anyone who can write the archive directory can edit it and recompute its manifest.
/// What the archiver recorded in `ferry.archives` (SHA-256, size, counts, positions) is the reference; a file
/// this database has no record of is foreign and restores only with `allowForeign`, against its manifest.
public struct ArchiveRestorer: Sendable {
    public let store: FerryStore

    public init(store: FerryStore) {
        self.store = store
    }

    /// Restores `path`. `allowForeign` accepts an archive that is not recorded in this database (still checked
    /// in full against its manifest and the fold); it never overrides a record's facts. With `signingKey` the
    /// manifest must carry a valid signature under it (what makes a foreign archive's manifest trustworthy).
    public func restore(_ path: String, allowForeign: Bool = false, signingKey: ArchiveSigningKey? = nil) async throws -> RestoreOutcome {
        let header = try ArchiveFileReader.header(of: path)
        let name = header.archiveID.uuidString.lowercased()
        let record = try await store.archive.record(header.archiveID)
        if record?.state == .restored { return .alreadyRestored }
        let manifest = try ArchiveManifest.read(for: path)
        if let manifest, manifest.archiveID.lowercased() != name {
            throw ArchiveError(
                .corrupt, "\(ArchiveManifest.path(for: path)) describes archive \(manifest.archiveID), but \(path) is archive \(name)",
                fix: "put the file's own manifest next to it (or remove the manifest); nothing was written")
        }
        if let signingKey {
            guard let manifest else {
                throw ArchiveError(
                    .corrupt, "\(path) has no manifest (\(ArchiveManifest.path(for: path))) to check its signature",
                    fix: "copy the manifest next to the file, or restore without --signing-key; nothing was written")
            }
            guard manifest.hasValidSignature(signingKey) else {
                throw ArchiveError(
                    .corrupt,
                    "\(ArchiveManifest.path(for: path)) \(manifest.signature == nil ? "is not signed" : "has a signature that is not valid under this signing key")",
                    fix: "the manifest was edited, or was signed with another key (or none): restore file and manifest from a backup, or give the key they were signed with; nothing was written")
            }
        }
        let expected: ArchiveExpectation
        if let record {
            expected = ArchiveExpectation(record: record)
            if let manifest { try Self.crossCheck(manifest, against: expected, path: path) }
        } else {
            guard allowForeign else { throw ArchiveStore.foreignArchiveError(name) }
            guard let manifest else {
                throw ArchiveError(
                    .corrupt, "\(path) is not recorded in this database and has no manifest (\(ArchiveManifest.path(for: path))) to check it against",
                    fix: "copy the manifest next to the file; nothing was written")
            }
            var facts = manifest.facts
            facts.sha256 = facts.sha256.lowercased()
            expected = ArchiveExpectation(source: .manifest, facts: facts)
        }

        // Checked before the transaction for a clear early answer, and again while the lines stream in: the file
        // may change in between.
        let actual = try ArchiveFileReader.checksum(of: path)
        try Self.check(actual, against: expected, path: path)
        return try await store.archive.restore(
            header.archiveID, file: path, expected: expected, finishedBefore: header.finishedBefore, allowForeign: allowForeign
        ) { emit in
            // The checksum is known only at the end: a mismatch throws inside the COPY, which keeps nothing.
            let read = try ArchiveFileReader.forEachJob(in: path) { try emit($0) }
            try Self.check(read, against: expected, path: path)
        }
    }

    private static func check(_ actual: (sha256: String, bytes: Int), against expected: ArchiveExpectation, path: String) throws {
        guard actual.sha256 == expected.sha256, actual.bytes == expected.bytes else {
            throw ArchiveError(
                .corrupt,
                "\(path) does not match the SHA-256 and size in \(expected.source) (\(expected.sha256), \(expected.bytes) bytes; the file has \(actual.sha256), \(actual.bytes) bytes)",
                fix: "the file is damaged or was edited: restore it from a backup; nothing was written")
        }
    }

    /// A manifest that contradicts the database's record is refused: one of the two was tampered with.
    private static func crossCheck(_ manifest: ArchiveManifest, against expected: ArchiveExpectation, path: String) throws {
        var differences = [String]()
        if manifest.sha256.lowercased() != expected.sha256 { differences.append("sha256") }
        if manifest.bytes != expected.bytes { differences.append("bytes \(manifest.bytes), recorded \(expected.bytes)") }
        if manifest.jobs != expected.jobs { differences.append("jobs \(manifest.jobs), recorded \(expected.jobs)") }
        if manifest.events != expected.events { differences.append("events \(manifest.events), recorded \(expected.events)") }
        if manifest.firstPosition != expected.firstPosition || manifest.lastPosition != expected.lastPosition {
            differences.append("positions")
        }
        guard differences.isEmpty else {
            throw ArchiveError(
                .corrupt,
                "\(ArchiveManifest.path(for: path)) contradicts this database's record of the archive (\(differences.joined(separator: ", ")))",
                fix: "the manifest or the file was edited: restore both from a backup, or remove the manifest to restore against the record if the file is intact; nothing was written")
        }
    }
}
