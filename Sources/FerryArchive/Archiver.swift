import FerryCore
import FerryStore
import Foundation
import Logging

/// Runs `ferry archive`: finishes what an interrupted run left, then moves finished jobs out in chunks.
///
/// The steps of one chunk, and what a crash after each leaves:
/// 1. write `NAME.partial` and sync it, inside the database transaction → the transaction dies with the
///    process, every row stays; the next run deletes the leftover file;
/// 2. commit: record the archive (`sealed`) and a marker per job, delete the rows → the next run finds the
///    sealed record, checks the `.partial` file's SHA-256 and gives it its final name;
/// 3. rename to `NAME` and sync the directory → the next run writes the manifest;
/// 4. write `NAME.manifest.json`, mark the archive `complete`.
public struct Archiver: Sendable {
    public let store: FerryStore
    public let directory: String
    public let logger: Logger
    /// Signs each manifest (`--signing-key`), so a restore can tell an edited file and manifest from ours.
    public let signingKey: ArchiveSigningKey?

    public init(store: FerryStore, directory: String, logger: Logger, signingKey: ArchiveSigningKey? = nil) {
        self.store = store
        self.directory = directory
        self.logger = logger
        self.signingKey = signingKey
    }

    /// Archives jobs that finished before `cutoff`, `jobsPerFile` per file, until none is left (or `maxFiles`).
    public func run(finishedBefore cutoff: Date, jobsPerFile: Int, maxFiles: Int? = nil) async throws -> ArchiveRunReport {
        var report = try await recover()
        while maxFiles.map({ report.written.count < $0 }) ?? true {
            let archiveID = UUIDv7.make()
            let path = (directory as NSString).appendingPathComponent(Self.fileName(for: archiveID))
            let header = ArchiveHeader(archiveID: archiveID, finishedBefore: cutoff)
            guard let chunk = try await store.archive.chunk(
                archiveID: archiveID, finishedBefore: cutoff, limit: jobsPerFile,
                sink: { try ArchiveFileWriter(path: path, header: header) })
            else {
                break
            }
            ArchiveCrashPoint.reach(.committed)
            try await seal(chunk.archiveID, path: path, sha256: chunk.file.sha256)
            logger.info(
                "archived jobs",
                metadata: ["file": "\(path)", "jobs": "\(chunk.jobs)", "events": "\(chunk.events)", "bytes": "\(chunk.file.bytes)"])
            report.written.append(
                ArchivedChunkSummary(file: path, jobs: chunk.jobs, events: chunk.events, bytes: chunk.file.bytes, sha256: chunk.file.sha256))
        }
        return report
    }

    /// Finishes archives an interrupted run committed, and removes `.partial` files no transaction committed.
    public func recover() async throws -> ArchiveRunReport {
        var report = ArchiveRunReport()
        for record in try await store.archive.all(states: [.sealed]) {
            try await seal(record.archiveID, path: record.file, sha256: record.sha256)
            report.recovered.append(record.file)
            logger.info("finished an interrupted archive", metadata: ["file": "\(record.file)"])
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names.sorted() where name.hasPrefix("ferry-archive-") && name.hasSuffix(".jsonl.gz" + ArchiveFileWriter.partialSuffix) {
            let partial = (directory as NSString).appendingPathComponent(name)
            // The id is in the name: the header may still sit in the writer's buffer, not on disk.
            let stem = name.dropLast((".jsonl.gz" + ArchiveFileWriter.partialSuffix).count)
            guard let archiveID = UUID(uuidString: String(stem.suffix(36))) else { continue }
            if try await store.archive.writerIsGone(archiveID) {
                try FileManager.default.removeItem(atPath: partial)
                report.discarded.append(partial)
                logger.info("removed the file of an archive that never committed", metadata: ["file": "\(partial)"])
            }
        }
        return report
    }

    /// Steps 3 and 4 for a committed archive: final name (after checking the checksum), manifest, complete.
    /// Under the archive's lock, so a concurrent run finishing the same archive waits and then finds it done.
    private func seal(_ archiveID: UUID, path: String, sha256: String) async throws {
        try await store.archive.withLock(archiveID) { record in
            guard let record, record.state == .sealed else { return }
            let partial = path + ArchiveFileWriter.partialSuffix
            let fileManager = FileManager.default
            if !fileManager.fileExists(atPath: path) {
                guard fileManager.fileExists(atPath: partial) else {
                    throw ArchiveError(
                        .missing, "archive \(archiveID.uuidString.lowercased()) was committed but its file \(path) is gone",
                        fix: "restore the file from a backup; its jobs are no longer in PostgreSQL")
                }
                let actual = try ArchiveFileReader.checksum(of: partial)
                guard actual.sha256 == sha256 else {
                    throw ArchiveError(
                        .corrupt, "\(partial) does not match the SHA-256 recorded for archive \(archiveID.uuidString.lowercased())",
                        fix: "restore the file from a backup")
                }
                try DurableFile.rename(partial, to: path)
            }
            ArchiveCrashPoint.reach(.renamed)
            let manifest = ArchiveManifest(record: record)
            try (signingKey.map(manifest.signed(with:)) ?? manifest).write(for: path)
            try await store.archive.complete(archiveID)
        }
    }

    /// `ferry-archive-20261124T101500Z-<id>.jsonl.gz`: sorts by time, unique by id.
    static func fileName(for archiveID: UUID) -> String {
        let stamp = Date().formatted(
            Date.VerbatimFormatStyle(
                format: "\(year: .defaultDigits)\(month: .twoDigits)\(day: .twoDigits)T\(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased))\(minute: .twoDigits)\(second: .twoDigits)Z",
                timeZone: .gmt, calendar: Calendar(identifier: .gregorian)))
        return "ferry-archive-\(stamp)-\(archiveID.uuidString.lowercased()).jsonl.gz"
    }
}
