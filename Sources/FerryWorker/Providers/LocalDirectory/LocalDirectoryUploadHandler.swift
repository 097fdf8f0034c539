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
        let (expected, source) = try SourceExpectation.open(job)

        let directory = (target as NSString).deletingLastPathComponent
        let name = (target as NSString).lastPathComponent
        let temporary = directory + "/" + SafePath.temporaryName(for: name, jobID: job.jobID)
        try await BlockingIO.run { try Self.makeDirectories(directory) }
        let part: OwnedFile
        do {
            part = try OwnedFile(path: temporary, flags: O_RDWR | O_CREAT)
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
            let chunk = try await BlockingIO.run { try source.read(at: start, count: self.chunkSize) }
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
            unlink(temporary)
            throw JobFailure.retryable("verify_failed", "the written file does not match the source (SHA-256); starting over")
        }
        try await BlockingIO.run { try Self.publish(temporary, as: target, digest: digest, size: expected.size, chunk: self.chunkSize) }
        return JobResult(bytes: expected.size, details: .object(["sha256": .string(digest), "path": .string(target)]))
    }

    /// Renames into place; an existing target with the same content means an earlier attempt already did it.
    static func publish(_ temporary: String, as target: String, digest: String, size: Int64, chunk: Int) throws {
        if access(target, F_OK) == 0 {
            let existing = try OwnedFile(path: target, flags: O_RDONLY)
            if Int64(try existing.status().st_size) == size, try sha256(of: existing, size: size, chunk: chunk) == digest {
                unlink(temporary)
                return
            }
            throw JobFailure.permanent("destination_exists", "\(target) already exists with different content")
        }
        guard rename(temporary, target) == 0 else { throw classify(POSIXFailure(operation: "rename", path: target, code: errno)) }
        // Make the rename itself durable.
        if let directory = try? OwnedFile(path: (target as NSString).deletingLastPathComponent, flags: O_RDONLY | O_DIRECTORY) {
            try? directory.sync()
        }
    }

    static func sha256(of file: OwnedFile, size: Int64, chunk: Int) throws -> String {
        var hasher = SHA256()
        var position: Int64 = 0
        while position < size {
            let bytes = try file.read(at: position, count: chunk)
            if bytes.isEmpty { break }
            hasher.update(data: bytes)
            position += Int64(bytes.count)
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    static func makeDirectories(_ path: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw JobFailure.permanent("destination_unwritable", "cannot create \(path)")
        }
    }

    /// Disk full and I/O errors may pass; permissions and missing mounts will not.
    static func classify(_ error: POSIXFailure) -> JobFailure {
        switch error.code {
        case EACCES, EPERM, EROFS, ENOTDIR, EISDIR: .permanent("destination_unwritable", error.description)
        default: .retryable("io_error", error.description)
        }
    }
}
