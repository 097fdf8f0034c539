import Crypto
import FerryCore

/// One pass of a local copy: moves byte ranges from the source to the temporary file and hashes them (SHA-256),
/// each byte read once by this process. Blocking: call through `BlockingIO`.
///
/// With `copy_file_range` the kernel copies the bytes (they never enter this process) and the pass then reads the
/// range just written back from the destination, hot in the page cache, into a pooled buffer to hash it: the
/// digest is of what the destination holds. Where the kernel cannot copy between the two files (another
/// filesystem, an old kernel, or turned off for tests), the pass reads the source into the pooled buffer, writes
/// it to the destination and hashes that same buffer: the digest is of the bytes written.
struct LocalCopyPass: Sendable {
    var hasher = SHA256()
    /// Cleared for the rest of the job the first time the kernel refuses to copy between these files.
    var kernelCopy = true

    /// Hashes bytes already in `file` (the part a resumed attempt keeps), read once.
    mutating func absorb(_ file: OwnedFile, _ range: Range<Int64>, buffer: BufferPool.Buffer) throws {
        var at = range.lowerBound
        while at < range.upperBound {
            let piece = Self.piece(of: buffer, at: at, end: range.upperBound)
            let count = try file.read(into: piece, at: at)
            guard count == piece.count else {
                throw JobFailure.retryable("io_error", "\(file.path) is shorter than its recorded progress")
            }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(piece))
            at += Int64(count)
        }
    }

    /// Copies `range` of `source` to the same range of `destination`, hashing it.
    mutating func copy(_ range: Range<Int64>, from source: OwnedFile, to destination: OwnedFile, buffer: BufferPool.Buffer) throws {
        var at = range.lowerBound
        while at < range.upperBound {
            let piece = Self.piece(of: buffer, at: at, end: range.upperBound)
            var count: Int
            if kernelCopy, let copied = try destination.copyRange(from: source, at: at, count: piece.count) {
                count = copied
                if count > 0 {
                    let read = try destination.read(into: UnsafeMutableRawBufferPointer(rebasing: piece[..<count]), at: at)
                    guard read == count else {
                        throw JobFailure.retryable("io_error", "\(destination.path) lost bytes just written to it")
                    }
                }
            } else {
                kernelCopy = false
                count = try source.read(into: piece, at: at)
                try destination.write(UnsafeRawBufferPointer(rebasing: piece[..<count]), at: at)
            }
            guard count == piece.count else {
                throw JobFailure.permanent("source_changed", "\(source.path) became shorter during the upload")
            }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(piece))
            at += Int64(count)
        }
    }

    /// The digest as lowercase hex.
    func hex() -> String {
        PartialDownload.hex(hasher.finalize())
    }

    /// As much of `buffer` as fits before `end`.
    static func piece(of buffer: BufferPool.Buffer, at offset: Int64, end: Int64) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(rebasing: buffer.bytes[..<Int(min(Int64(buffer.bytes.count), end - offset))])
    }
}
