import Crypto
import FerryCore
import FerryProviders
import FerryStore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Uploads into a local directory (a mounted NAS or volume): `--to file:///dir/`.
///
/// Copies chunks to a temporary name beside the target, records a progress event per chunk (with the offset,
/// after `fsync`, so a crash never records bytes that are not on disk), resumes from the recorded offset on
/// the next attempt, checks that the source did not change since enqueue (size, mtime, inode) nor during the
/// copy, then fsyncs the file, renames it into place and fsyncs the folder.
///
/// One pass over the data (``LocalCopyPass``): the kernel copies each piece (`copy_file_range`; the bytes never
/// enter the worker) and the worker reads that piece back once from the destination, still in the page cache, to
/// hash it; where the kernel cannot copy (another filesystem), the worker reads the source once, writes it and
/// hashes what it wrote. So each byte is read by the worker once, and the SHA-256 in the result is of the
/// destination's bytes (including a resumed attempt's kept part, read once at the start). The earlier second
/// pass (re-reading the written file to compare digests) is gone: it read the same page-cache pages this hash
/// reads, so it could only catch a write that did not land as written, which hashing the destination covers;
/// that the destination equals the source rests on the kernel's copy together with the source checks before and
/// after (a source changed in place must change its mtime or size) and the `fsync` before the rename. Buffers
/// come from the process's `BufferPool` (one per transfer while it runs, never chunk-sized), and with
/// `--bwlimit` each piece is paid for before it is copied.
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
        // Every open, create and rename runs off the cooperative pool: with many copies into one folder they queue
        // on the folder's lock in the kernel, and a cooperative thread waiting there stalls every task.
        let (expected, source) = try await BlockingIO.run { try SourceExpectation.open(job, roots: roots) }

        let (directory, name) = LocalRoots.split(target)
        guard SafePath.component(name) != nil else {
            throw JobFailure.permanent("bad_destination", "\(target) does not name a file")
        }
        let temporaryName = SafePath.temporaryName(for: name, jobID: job.jobID)
        let temporary = directory + "/" + temporaryName
        let folder = try await BlockingIO.run { try roots.openDirectory(directory, create: true, role: "destination") }
        let ifChanged = try job.details(as: LocalDirectoryUploadDetails.self).ifChanged == true
        let policy = ExistingTarget.policy(of: job)
        if ExistingTarget.looks(job, ifChanged: ifChanged),
            let done = try await Self.look(at: name, in: folder, target: target, source: source, size: expected.size, policy: policy, context: context)
        {
            return done
        }
        // A copy that compares replaces a changed file (the rename swaps it whole); otherwise a different file is kept.
        let replaces = ifChanged && policy == .replace
        let part = try await BlockingIO.run { () throws -> OwnedFile in
            do {
                // The source's permission bits, never wider (a root worker must not turn a 0600 secret into a 0644 copy).
                let mode = mode_t(try source.status().st_mode & 0o777)
                let part = try folder.openChild(temporaryName, flags: O_RDWR | O_CREAT | O_NOFOLLOW, mode: 0o600)
                try part.setMode(mode)
                return part
            } catch let error as POSIXFailure {
                throw Self.classify(error)
            }
        }

        // Resume where the last attempt's recorded progress says the bytes are durable.
        var resumeAt: Int64 = 0
        if let session = job.session.flatMap({ try? JSONValue.parse($0) }), session["temp"]?.stringValue == temporary,
            let recorded = session["offset"]?.intValue, recorded > 0, recorded <= expected.size,
            (try? part.status().st_size).map({ Int64($0) >= recorded }) == true
        {
            resumeAt = recorded
            context.logger.info("resuming upload", metadata: ["offset": "\(recorded)"])
        }
        let digest = try await BufferPool.shared.withBuffer { buffer in
            var pass = try await BlockingIO.run { [resumeAt] in
                var pass = LocalCopyPass()
                try pass.absorb(part, 0..<resumeAt, buffer: buffer)
                try part.truncate(to: resumeAt)
                return pass
            }
            var offset = resumeAt
            while offset < expected.size {
                try context.checkCancellation()
                let chunk = offset..<min(expected.size, offset + Int64(chunkSize))
                do {
                    pass = try await copy(chunk, from: source, to: part, pass: pass, buffer: buffer, context: context)
                } catch let error as POSIXFailure {
                    throw await Self.failure(error, removing: temporaryName, in: folder)
                }
                offset = chunk.upperBound
                context.noteBytes(offset)
                if offset < expected.size {
                    try await context.reportProgress(
                        bytesDone: offset, bytesTotal: expected.size,
                        session: .object(["temp": .string(temporary), "offset": .int(offset)]))
                }
            }
            if !pass.kernelCopy { context.logger.debug("copied with read and write (copy_file_range not available here)") }
            try expected.check(try source.status(), path: job.source, when: "during the upload")
            let digest = pass.hex()
            // The copy keeps the source's modification time, as cp -p and rclone do.
            let mtime = expected.modifiedNanoseconds
            try await BlockingIO.run { try part.setModificationTime(nanoseconds: mtime) }
            let renamed = try await BlockingIO.run {
                try Self.publish(
                    temporaryName, as: name, in: folder, target: target, digest: digest, size: expected.size, replaces: replaces, buffer: buffer,
                    fence: { try context.ensureLease(before: "renaming into place") })
            }
            // Make the rename itself durable (with other jobs' renames: one flush for the group).
            if renamed { try await GroupSync.shared.sync(folder) }
            return digest
        }
        return JobResult(bytes: expected.size, details: .object(["sha256": .string(digest), "path": .string(target)]))
    }

    /// Copies one chunk and makes it durable (`fsync`): in one trip off the cooperative pool, or piece by piece
    /// with a bandwidth limit to pay for each piece first.
    private func copy(
        _ chunk: Range<Int64>, from source: OwnedFile, to part: OwnedFile, pass: LocalCopyPass, buffer: BufferPool.Buffer,
        context: JobContext
    ) async throws -> LocalCopyPass {
        guard let bandwidth = context.bandwidth else {
            let copied = try await BlockingIO.run {
                var pass = pass
                try pass.copy(chunk, from: source, to: part, buffer: buffer)
                return pass
            }
            try await GroupSync.shared.sync(part)
            return copied
        }
        var pass = pass
        var at = chunk.lowerBound
        while at < chunk.upperBound {
            try context.checkCancellation()
            let piece = at..<min(chunk.upperBound, at + Int64(buffer.bytes.count))
            try await bandwidth.spend(piece.count)
            pass = try await BlockingIO.run { [pass] in
                var pass = pass
                try pass.copy(piece, from: source, to: part, buffer: buffer)
                return pass
            }
            at = piece.upperBound
        }
        try await GroupSync.shared.sync(part)
        return pass
    }

    /// Renames into place within `folder`; an existing target with the same content means an earlier attempt
    /// already did it. A different file there is replaced by the rename when `replaces` (never partly: readers
    /// see the old file or the new one), and otherwise kept (the job fails). A symlink at the target is never
    /// followed (it is "different content"; replaced, the link itself goes). `fence` runs right before the rename
    /// (the lease check). Returns whether it renamed (the folder then needs a sync).
    static func publish(
        _ temporaryName: String, as name: String, in folder: OwnedFile, target: String, digest: String, size: Int64,
        replaces: Bool, buffer: BufferPool.Buffer, fence: () throws -> Void = {}
    ) throws -> Bool {
        if let existing = try? folder.openChild(name, flags: O_RDONLY | O_NOFOLLOW | O_NONBLOCK, mode: 0) {
            let info = try existing.status()
            if (info.st_mode & S_IFMT) == S_IFREG, Int64(info.st_size) == size, try sha256(of: existing, size: size, buffer: buffer) == digest {
                folder.removeChild(temporaryName)
                return false
            }
            guard replaces else {
                // The job fails for good: its copy would never be used.
                folder.removeChild(temporaryName)
                throw JobFailure.permanent(
                    "destination_exists",
                    "\(target) already exists with different content; enqueue with --if-changed to replace a changed file")
            }
        }
        try fence()
        do {
            try folder.renameChild(temporaryName, to: name)
        } catch let error as POSIXFailure {
            let failure = classify(error)
            if case .shortage(.noSpace) = failure.kind { folder.removeChild(temporaryName) }
            throw failure
        }
        return true
    }

    /// The SHA-256 of a file already at the target (an earlier attempt's rename), read through `buffer`.
    static func sha256(of file: OwnedFile, size: Int64, buffer: BufferPool.Buffer) throws -> String {
        var pass = LocalCopyPass()
        try pass.absorb(file, 0..<size, buffer: buffer)
        return pass.hex()
    }

    /// Disk full and I/O errors may pass; permissions and missing mounts will not. A full disk or too few file
    /// descriptors is the machine's shortage (deferred, no attempt used).
    static func classify(_ error: POSIXFailure) -> JobFailure {
        if let shortage = JobFailure.shortage(of: error) { return shortage }
        switch error.code {
        case EACCES, EPERM, EROFS, ENOTDIR, EISDIR: return .permanent("destination_unwritable", error.description)
        default: return .retryable("io_error", error.description)
        }
    }
}
