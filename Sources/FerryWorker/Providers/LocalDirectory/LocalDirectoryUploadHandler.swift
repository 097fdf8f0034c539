import Crypto
import FerryCore
import FerryStore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Uploads into a local directory (a mounted NAS or volume): `--to file:///dir/`.
///
/// Writes chunks to a temporary name beside the target, records a progress event per chunk (with the offset,
/// after `fsync`, so a crash never records bytes that are not on disk), resumes from the recorded offset on
/// the next attempt, checks that the source did not change since enqueue (size, mtime, inode) nor during the
/// copy, verifies the written file's SHA-256 against the bytes read, then fsyncs and renames into place.
///
/// Source and destination are confined to the worker's local roots; the destination folder is opened once
/// (walked from its root) and the temporary file, the check for an existing target and the rename all go
/// through that descriptor, so the folder cannot be swapped for a symlink between check and use. The copy gets
/// the source's permission bits (never wider than the source), set before any byte is written.
public struct LocalDirectoryUploadHandler: JobHandler {
    public let chunkSize: Int

    public init(chunkSize: Int = 8 * 1024 * 1024) {
        self.chunkSize = max(64 * 1024, chunkSize)
    }

    public var name: String { "local-directory" }


    public func run(_ job: ClaimedJob, context: JobContext) async throws -> JobResult {
        guard let target = try? FileURL.path(of: job.destination, field: "to", line: nil) else {
            throw JobFailure.permanent("bad_destination", "destination is not a file:/// URL")
        }
        let roots = context.localRoots
        let (expected, source) = try SourceExpectation.open(job, roots: roots)

        let (directory, name) = LocalRoots.split(target)
        guard SafePath.component(name) != nil else {
            throw JobFailure.permanent("bad_destination", "\(target) does not name a file")
        }
        let temporaryName = SafePath.temporaryName(for: name, jobID: job.jobID)
        let temporary = directory + "/" + temporaryName
        let folder = try await BlockingIO.run { try roots.openDirectory(directory, create: true, role: "destination") }
        // The source's permission bits, never wider (a root worker must not turn a 0600 secret into a 0644 copy).
        let mode = mode_t(try source.status().st_mode & 0o777)
        let part: OwnedFile
        do {
            part = try folder.openChild(temporaryName, flags: O_RDWR | O_CREAT | O_NOFOLLOW, mode: 0o600)
            try part.setMode(mode)
        } catch let error as POSIXFailure {
            throw Self.classify(error)
        }

        // Resume where the last attempt's recorded progress says the bytes are durable.
        var offset: Int64 = 0
        var hasher = SHA256()
        if let session = job.session.flatMap({ try? JSONValue.parse($0) }), session["temp"]?.stringValue == temporary,
            let recorded = session["offset"]?.intValue, recorded > 0, recorded <= expected.size,
            (try? part.status().st_size).map({ Int64($0) >= recorded }) == true
        {
            offset = recorded
            var position: Int64 = 0
            while position < offset {
                let (at, count) = (position, Int(min(Int64(chunkSize), offset - position)))
                let bytes = try await BlockingIO.run { try part.read(at: at, count: count) }
                hasher.update(data: bytes)
                position += Int64(bytes.count)
            }
            context.logger.info("resuming upload", metadata: ["offset": "\(offset)"])
        }
        try part.truncate(to: offset)

        while offset < expected.size {
            try context.checkCancellation()
            let start = offset
            // Never more than is left: a 64 KiB file must not cost a chunk-sized (8 MiB) zeroed buffer.
            let count = Int(min(Int64(chunkSize), expected.size - start))
            let chunk = try await BlockingIO.run { try source.read(at: start, count: count) }
            guard !chunk.isEmpty else {
                throw JobFailure.permanent("source_changed", "\(job.source) became shorter during the upload")
            }
            do {
                try await BlockingIO.run {
                    try part.write(chunk, at: start)
                    try part.sync()
                }
            } catch let error as POSIXFailure {
                throw Self.classify(error)
            }
            hasher.update(data: chunk)
            offset += Int64(chunk.count)
            context.noteBytes(offset)
            if offset < expected.size {
                try await context.reportProgress(
                    bytesDone: offset, bytesTotal: expected.size,
                    session: .object(["temp": .string(temporary), "offset": .int(offset)]))
            }
        }
        try expected.check(try source.status(), path: job.source, when: "during the upload")

        // Read back what landed on disk: a resume bug or a bad disk must not pass as success.
        let digest = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        let written = try await BlockingIO.run { try Self.sha256(of: part, size: expected.size, chunk: self.chunkSize) }
        guard written == digest else {
            folder.removeChild(temporaryName)
            throw JobFailure.retryable("verify_failed", "the written file does not match the source (SHA-256); starting over")
        }
        try await BlockingIO.run {
            try Self.publish(temporaryName, as: name, in: folder, target: target, digest: digest, size: expected.size, chunk: self.chunkSize)
        }
        return JobResult(bytes: expected.size, details: .object(["sha256": .string(digest), "path": .string(target)]))
    }

    /// Renames into place within `folder`; an existing target with the same content means an earlier attempt
    /// already did it. A symlink at the target is never followed (it is "different content").
    static func publish(
        _ temporaryName: String, as name: String, in folder: OwnedFile, target: String, digest: String, size: Int64, chunk: Int
    ) throws {
        if let existing = try? folder.openChild(name, flags: O_RDONLY | O_NOFOLLOW | O_NONBLOCK, mode: 0) {
            let info = try existing.status()
            if (info.st_mode & S_IFMT) == S_IFREG, Int64(info.st_size) == size, try sha256(of: existing, size: size, chunk: chunk) == digest {
                folder.removeChild(temporaryName)
                return
            }
            throw JobFailure.permanent("destination_exists", "\(target) already exists with different content")
        }
        do {
            try folder.renameChild(temporaryName, to: name)
        } catch let error as POSIXFailure {
            throw classify(error)
        }
        // Make the rename itself durable.
        try? folder.sync()
    }

    static func sha256(of file: OwnedFile, size: Int64, chunk: Int) throws -> String {
        var hasher = SHA256()
        var position: Int64 = 0
        while position < size {
            let bytes = try file.read(at: position, count: Int(min(Int64(chunk), size - position)))
            if bytes.isEmpty { break }
            hasher.update(data: bytes)
            position += Int64(bytes.count)
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// Disk full and I/O errors may pass; permissions and missing mounts will not.
    static func classify(_ error: POSIXFailure) -> JobFailure {
        switch error.code {
        case EACCES, EPERM, EROFS, ENOTDIR, EISDIR: .permanent("destination_unwritable", error.description)
        default: .retryable("io_error", error.description)
        }
    }
}
