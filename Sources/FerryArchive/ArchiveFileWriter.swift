import CompressNIO
import Crypto
import FerryStore
import Foundation
import NIOCore

/// Writes one archive file: gzip-compressed JSON Lines, a header line first, then one job per line.
///
/// The file is created as `path + ".partial"` (never over an existing file) and only made durable by
/// ``finish()``; giving it its final name is the caller's step after the database commit.
public final class ArchiveFileWriter: ArchiveSink {
    public let path: String
    private var descriptor: Int32
    private let compressor: ZlibCompressor
    private var pending: ByteBuffer
    private var window: ByteBuffer
    private var hasher = SHA256()
    private var written = 0

    /// Creates `path.partial` and writes the header line.
    public init(path: String, header: ArchiveHeader) throws {
        self.path = path
        let partial = path + ArchiveFileWriter.partialSuffix
        descriptor = open(partial, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o640)
        guard descriptor >= 0 else {
            throw ArchiveError(.io, "cannot create \(partial): \(String(cString: strerror(errno)))",
                               fix: "check that the directory exists and is writable")
        }
        do {
            compressor = try ZlibCompressor(algorithm: .gzip, configuration: .init(compressionLevel: 6))
        } catch {
            close(descriptor)
            throw ArchiveError(.io, "cannot start gzip compression: \(error)")
        }
        pending = ByteBufferAllocator().buffer(capacity: 1 << 20)
        window = ByteBufferAllocator().buffer(capacity: 1 << 20)
        try write(line: Array(header.jsonLine.utf8))
    }

    deinit {
        // Abandoned before finish (an error, or the transaction failed): the .partial stays for recovery to judge.
        if descriptor >= 0 { close(descriptor) }
    }

    /// The suffix a file carries until its archive is committed.
    public static let partialSuffix = ".partial"

    public func write(line: [UInt8]) throws {
        pending.writeBytes(line)
        pending.writeInteger(UInt8(ascii: "\n"))
        if pending.readableBytes >= 1 << 20 { try compress(flush: .no) }
    }

    public func finish() throws -> ArchiveFileFacts {
        try compress(flush: .finish)
        guard fsync(descriptor) == 0 else {
            let code = errno
            removeIfFull(code)
            throw ArchiveError(.io, "cannot sync \(path)\(ArchiveFileWriter.partialSuffix): \(String(cString: strerror(code)))")
        }
        close(descriptor)
        descriptor = -1
        ArchiveCrashPoint.reach(.written)
        let digest = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        return ArchiveFileFacts(path: path, sha256: digest, bytes: written)
    }

    /// On a full disk (`ENOSPC`, `EDQUOT`) removes the `.partial` file at once: it is unfinished, so its transaction
    /// cannot commit, and its bytes would hold the space the next run needs until that run's recovery removed it.
    private func removeIfFull(_ code: Int32) {
        guard code == ENOSPC || code == EDQUOT else { return }
        close(descriptor)
        descriptor = -1
        unlink(path + ArchiveFileWriter.partialSuffix)
    }

    private func compress(flush: CompressNIOFlush) throws {
        var output = [UInt8]()
        do {
            try pending.compressStream(with: compressor, window: &window, flush: flush) { chunk in
                output.append(contentsOf: chunk.readableBytesView)
            }
            // With .no the compressor may keep output in the window until it fills: take what is there.
            if flush == .no, window.readableBytes > 0 {
                output.append(contentsOf: window.readableBytesView)
                window.clear()
            }
        } catch {
            throw ArchiveError(.io, "compressing \(path) failed: \(error)")
        }
        pending.discardReadBytes()
        try writeAll(output)
    }

    private func writeAll(_ bytes: [UInt8]) throws {
        guard !bytes.isEmpty else { return }
        hasher.update(data: bytes)
        var offset = 0
        try bytes.withUnsafeBytes { raw in
            while offset < raw.count {
                let count = Foundation.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if count < 0 {
                    let code = errno
                    if code == EINTR { continue }
                    removeIfFull(code)
                    throw ArchiveError(.io, "writing \(path)\(ArchiveFileWriter.partialSuffix) failed: \(String(cString: strerror(code)))",
                                       fix: "check free disk space")
                }
                offset += count
            }
        }
        written += bytes.count
    }
}
