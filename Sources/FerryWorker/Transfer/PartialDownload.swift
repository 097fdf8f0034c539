import Crypto
import FerryCore
import FerryProviders
import Foundation
import Tracing
import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

/// The temporary file a fetch writes beside its target before renaming it into place.
///
/// One owner (the handler's attempt). The pieces the HTTP client hands over are kept as they are (no copy) and
/// written off the cooperative pool with one `pwritev` per `flushSize`, while the next pieces arrive: one write
/// in flight at a time, so memory stays near two batches and the digests see the bytes in order. Each write
/// also starts the disk on its bytes (`sync_file_range`), so dirty pages do not pile up until the next sync.
/// `checkpoint()` waits for the writes and syncs them (`fdatasync`), so the offset it returns can be recorded
/// as progress and resumed from after a crash. `finish` verifies the length and checksums, syncs, renames into
/// place and syncs the folder, so a finished file is either complete or absent.
///
/// The target must lie inside `root` (the folder the job was given): the check is lexical (no `..`), and every
/// folder created on the way is created by us below `root`, with `O_NOFOLLOW` on the file, so no remote name or
/// planted symlink can make a fetch write elsewhere. The target's folder is then opened through the worker's
/// local roots (`LocalRoots`, checked against the real path of the opened descriptor), and the temporary file,
/// the rename and the removal all go through that descriptor. Files are created 0600: what a remote server sent
/// is for the worker's user until an operator widens it.
final class PartialDownload: @unchecked Sendable {
    /// The final path.
    let target: String
    /// `.<name>.ferry-<job>.part` in the target's folder: stable per job, so a new attempt finds it.
    let temporary: String
    private let temporaryName: String
    private let name: String
    private let jobID: UUID
    /// The target's folder, opened once through the local roots.
    private let folder: OwnedFile
    private let file: OwnedFile
    /// Pieces received and not yet handed to a write, in order.
    private var pending: [ByteBuffer] = []
    private var pendingBytes = 0
    /// The write of the batch before, running off the cooperative pool.
    private var writing: Task<Void, any Error>?
    private let flushSize: Int
    /// `--bwlimit`: each piece received is paid for before the next is taken, so the connection slows to the limit.
    private let bandwidth: BandwidthBudget?
    /// Pieces per write. Each can hold on to a whole receive buffer (up to 64 KiB) however few bytes it carries,
    /// so a slow link's many small pieces are written (and released) early; also below `IOV_MAX`.
    private static let maxPieces = 64
    /// Bytes received: durable, being written or pending.
    private(set) var offset: Int64 = 0
    /// What to do with a file at the target when the download is done (`existing`, from the job).
    private var existing: ExistingFilePolicy = .replace
    /// Told the bytes received so far, for live progress (set by `open`).
    private var onBytes: (@Sendable (Int64) -> Void)?
    /// The job's lease check, run right before the rename into place (set by `open`).
    private var fence: @Sendable () throws -> Void = {}
    private var sha256: SHA256?
    private var contentHash: (any ContentHasher)?
    private var contentDigestKind: ContentDigestKind?
    private var md5: Insecure.MD5?
    /// Where and when the stretch since the last checkpoint began: one `ferry.download.checkpoint` span per
    /// stretch keeps the span count bounded (pieces are far too many to trace).
    private var stretchStart = TraceTimestamp.now()
    private var stretchOffset: Int64?

    enum Digest: Hashable {
        /// SHA-256 (a checksum the user gave); MD5 (a plain object ETag, a stored checksum); the provider's own.
        case sha256, md5
        case provider(ContentDigestKind)
    }

    struct Finished: Sendable {
        var bytes: Int64
        var sha256: String?
        var contentHash: String?
        var md5: String?
    }

    /// Opens (or creates) the temporary file for `target`, and has `context` remove it if the job ends for good
    /// (fails for good or is cancelled); a retried, released or killed attempt leaves it for the next one.
    ///
    /// - Parameters:
    ///   - resumeAt: a recorded durable offset: kept if the file has at least that many bytes (the rest is
    ///     dropped), otherwise the download starts from zero. A file left by an earlier attempt (even one before
    ///     a `ferry retry`) is only reused this way, through the job's own cursor.
    ///   - digests: checksums to compute while writing (resumed bytes are read back and hashed).
    static func open(
        target: String, root: String, jobID: UUID, resumeAt: Int64?, digests: Set<Digest>, context: JobContext,
        flushSize: Int = 1 << 20
    ) async throws -> PartialDownload {
        let (roots, bandwidth) = (context.localRoots, context.bandwidth)
        // The kept bytes are read back for the digests through a pooled buffer (nothing allocated per resume).
        let partial = try await BufferPool.shared.withBuffer { scratch in
            try await BlockingIO.run {
                try PartialDownload(
                    target: target, root: root, roots: roots, jobID: jobID, resumeAt: resumeAt, digests: digests,
                    flushSize: flushSize, bandwidth: bandwidth, scratch: scratch)
            }
        }
        context.whenJobEnds { await partial.discard() }
        partial.onBytes = { context.noteBytes($0) }
        partial.fence = { try context.ensureLease(before: "renaming the download into place") }
        partial.existing = ExistingTarget.policy(of: context.job)
        return partial
    }

    private init(
        target: String, root: String, roots: LocalRoots, jobID: UUID, resumeAt: Int64?, digests: Set<Digest>, flushSize: Int,
        bandwidth: BandwidthBudget?, scratch: BufferPool.Buffer
    ) throws {
        guard SafePath.isInside(target, root: root), let normalized = SafePath.normalize(target), normalized == target
                || normalized == String(target.trimmingSuffix("/"))
        else {
            throw JobFailure.permanent("unsafe_path", "refusing to write \(target): it is not inside \(root)")
        }
        let name = String(target.split(separator: "/").last ?? "")
        guard SafePath.component(name) != nil else {
            throw JobFailure.permanent("unsafe_path", "refusing to write \(target): not a usable file name")
        }
        // The job's folder is created through the roots (refused outside them), the folders below it as before.
        _ = try roots.openDirectory(SafePath.normalize(root) ?? root, create: true, role: "destination")
        try Self.makeFolders(for: target, root: root)
        let folder = try roots.openDirectory(SafePath.directory(of: target), create: false, role: "destination")
        self.target = target
        self.name = name
        self.jobID = jobID
        self.folder = folder
        self.temporaryName = SafePath.temporaryName(for: name, jobID: jobID)
        self.temporary = SafePath.directory(of: target) + temporaryName
        self.file = try folder.openChild(temporaryName, flags: O_RDWR | O_CREAT | O_NOFOLLOW, mode: 0o600)
        self.flushSize = flushSize
        self.bandwidth = bandwidth
        if digests.contains(.sha256) { sha256 = SHA256() }
        for case .provider(let kind) in digests {
            contentDigestKind = kind
            contentHash = kind.make()
        }
        if digests.contains(.md5) { md5 = Insecure.MD5() }
        let size = Int64(try file.status().st_size)
        let keep = resumeAt.map { $0 <= size ? $0 : 0 } ?? 0
        try file.truncate(to: keep)
        // Hash what is kept so the final checksums cover the whole file.
        var position: Int64 = 0
        while position < keep {
            let piece = UnsafeMutableRawBufferPointer(rebasing: scratch.bytes[..<Int(min(Int64(scratch.bytes.count), keep - position))])
            let count = try file.read(into: piece, at: position)
            guard count > 0 else { break }
            absorb(UnsafeRawBufferPointer(rebasing: piece[..<count]))
            position += Int64(count)
        }
        offset = keep
        stretchOffset = keep
    }

    /// Creates the folders between `root` and the target's folder, refusing symlinks on the way.
    private static func makeFolders(for target: String, root: String) throws {
        let base = SafePath.normalize(root) ?? root
        // The root is the caller's own folder (trusted): create it with its parents, like mkdir -p.
        var prefix = ""
        for part in base.split(separator: "/") {
            prefix += "/" + part
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
                throw POSIXFailure(operation: "mkdir", path: prefix, code: errno)
            }
        }
        let folder = SafePath.directory(of: target)
        let relative = folder.dropFirst(base == "/" ? 1 : base.count + 1)
        var path = base == "/" ? "" : base
        for part in relative.split(separator: "/") {
            path += "/" + part
            if mkdir(path, 0o755) != 0 {
                guard errno == EEXIST else { throw POSIXFailure(operation: "mkdir", path: path, code: errno) }
                var info = stat()
                guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
                    throw JobFailure.permanent("unsafe_path", "refusing to write through \(path): it is not a plain folder")
                }
            }
        }
    }

    private func absorb(_ bytes: UnsafeRawBufferPointer) {
        sha256?.update(bufferPointer: bytes)
        contentHash?.update(bytes)
        md5?.update(bufferPointer: bytes)
    }

    /// Takes bytes received from the server. Every `flushSize` they are handed to a write that runs while the
    /// next ones arrive; this waits only while the write before is still running.
    func append(_ bytes: ByteBuffer) async throws {
        guard bytes.readableBytes > 0 else { return }
        try await bandwidth?.spend(bytes.readableBytes)
        pending.append(bytes)
        pendingBytes += bytes.readableBytes
        offset += Int64(bytes.readableBytes)
        onBytes?(offset)
        if pendingBytes >= flushSize || pending.count >= Self.maxPieces { try await freeingSpace { try await startWrite() } }
    }

    /// Waits for the write in flight, then hands the pending pieces to a new one, which writes them and hashes
    /// them (CPU-bound on a large download) off the cooperative pool.
    private func startWrite() async throws {
        try await writeFinished()
        guard !pending.isEmpty else { return }
        let (pieces, count, file, jobID) = (pending, pendingBytes, file, jobID)
        let at = offset - Int64(count)
        pending = []
        pendingBytes = 0
        let hashes = sha256 != nil || contentHash != nil || md5 != nil
        writing = Task { [self] in
            let write: @Sendable () throws -> Void = {
                try LocalWriteFaults.check(job: jobID, path: file.path, end: at + Int64(count))
                try file.write(pieces, at: at)
                file.startWriteback(at: at, count: count)
            }
            guard hashes else { return try await BlockingIO.run(write) }
            // On two threads: a hashed download is bound by the slower of hashing and writing, not their sum.
            async let hashed: Void = BlockingIO.run { [self] in
                for piece in pieces { piece.withUnsafeReadableBytes { absorb($0) } }
            }
            try await BlockingIO.run(write)
            try await hashed
        }
    }

    /// Waits for the write in flight, if any; throws its error.
    private func writeFinished() async throws {
        guard let writing else { return }
        self.writing = nil
        try await writing.value
    }

    /// Writes everything received.
    private func flush() async throws {
        try await startWrite()
        try await writeFinished()
    }

    /// Writes everything received and syncs it (data and length); returns the durable offset to record as
    /// progress.
    func checkpoint() async throws -> Int64 {
        let file = self.file
        try await freeingSpace {
            try await flush()
            try await BlockingIO.run { try file.syncData() }
        }
        endStretch("ferry.download.checkpoint")
        return offset
    }

    /// Ends the span of the bytes received since the last checkpoint (a no-op span when tracing is off).
    private func endStretch(_ name: String) {
        let from = stretchOffset ?? 0
        let span = startSpan(name, at: stretchStart, ofKind: .internal)
        span.attributes["ferry.offset"] = from
        span.attributes["ferry.bytes"] = offset - from
        span.end()
        stretchStart = TraceTimestamp.now()
        stretchOffset = offset
    }

    /// Drops everything (the remote file changed, or the server ignored the range).
    func restart() async throws {
        // A write in flight must land before the truncation, not after it.
        try await writeFinished()
        pending = []
        pendingBytes = 0
        offset = 0
        stretchOffset = 0
        if sha256 != nil { sha256 = SHA256() }
        if let contentDigestKind { contentHash = contentDigestKind.make() }
        if md5 != nil { md5 = Insecure.MD5() }
        let file = self.file
        try await BlockingIO.run { try file.truncate(to: 0) }
    }

    /// Verifies, syncs and renames into place. On a length or checksum mismatch the temporary file is removed
    /// (its bytes are wrong, so resuming from them would be too) and the error says what differed.
    ///
    /// - Parameter modified: the source's modification time, given to the file (as `rclone` and `cp -p` keep it),
    ///   so a later run can tell an unchanged file by size and time.
    func finish(
        expectedLength: Int64?, expectedSHA256: String?, expectedContentHash: String?, expectedMD5: String? = nil,
        modified: Date? = nil
    ) async throws -> Finished {
        try await freeingSpace { try await flush() }
        endStretch("ferry.download.checkpoint")
        let finished = Finished(
            bytes: offset, sha256: sha256.map { Self.hex($0.finalize()) }, contentHash: contentHash?.finalize(),
            md5: md5.map { $0.finalize().map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() })
        func mismatch(_ what: String) async throws -> Never {
            await discard()
            throw JobFailure.retryable("checksum_mismatch", what)
        }
        if let expectedLength, expectedLength != offset {
            try await mismatch("received \(offset) bytes, expected \(expectedLength)")
        }
        if let expectedSHA256, let actual = finished.sha256, actual != expectedSHA256.lowercased() {
            try await mismatch("SHA-256 of the download is \(actual), expected \(expectedSHA256.lowercased())")
        }
        if let expectedContentHash, let actual = finished.contentHash, actual != expectedContentHash {
            try await mismatch("content_hash of the download is \(actual), the provider says \(expectedContentHash)")
        }
        if let expectedMD5, let actual = finished.md5, actual != expectedMD5.lowercased() {
            try await mismatch("MD5 of the download is \(actual), the store's ETag says \(expectedMD5.lowercased())")
        }
        let (file, folder, temporaryName, name) = (self.file, self.folder, self.temporaryName, self.name)
        if existing != .replace {
            // A file at the target stays: with `ignore` whatever it holds, with `immutable` only the same bytes.
            let (size, policy, target) = (offset, existing, self.target)
            let kept = try await BlockingIO.run { () throws -> Bool? in
                guard let present = try? folder.openChild(name, flags: O_RDONLY | O_NOFOLLOW | O_NONBLOCK, mode: 0) else { return nil }
                if policy == .ignore { return true }
                let info = try present.status()
                guard (info.st_mode & S_IFMT) == S_IFREG, Int64(info.st_size) == size else { return false }
                return try LocalContentHash.sameContent(file, present, size: size)
            }
            if let kept {
                await discard()
                guard kept else {
                    throw JobFailure.permanent(
                        "destination_exists",
                        "\(target) exists with different content and the fetch is immutable; remove it or fetch with --option existing=replace")
                }
                return finished
            }
        }
        if let modified { try await BlockingIO.run { try file.setModificationTime(modified) } }
        // Durable in groups with the other transfers finishing now (GroupSync): the data before the rename, the
        // rename (the folder) before success.
        let fence = self.fence
        try await freeingSpace {
            try await GroupSync.shared.sync(file)
            try await BlockingIO.run {
                try fence()
                try folder.renameChild(temporaryName, to: name)
            }
        }
        try await GroupSync.shared.sync(folder)
        return finished
    }

    /// Removes the temporary file (once a write in flight is done with it).
    func discard() async {
        try? await writeFinished()
        let (folder, temporaryName) = (self.folder, self.temporaryName)
        _ = try? await BlockingIO.run { folder.removeChild(temporaryName) }
    }

    static func hex(_ digest: SHA256.Digest) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(64)
        for byte in digest {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> Substring {
        hasSuffix(suffix) ? dropLast(suffix.count) : Substring(self)
    }
}
