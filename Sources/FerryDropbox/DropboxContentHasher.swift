import FerryCore
import Crypto
import NIOCore

/// Dropbox's `content_hash`: SHA-256 of every 4 MiB block, the block digests concatenated, then
/// SHA-256 of that, as lowercase hex. Incremental, so memory stays flat for files of any size;
/// updates may be of any size and straddle block boundaries.
public struct DropboxContentHasher: Sendable {
    /// Dropbox's block size, 4 MiB.
    public static let blockSize = 4 * 1024 * 1024

    private var overall = SHA256()
    private var block = SHA256()
    private var blockFill = 0

    public init() {}

    /// Feeds the next bytes of the file.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var rest = bytes[...]
        while !rest.isEmpty {
            let take = min(Self.blockSize - blockFill, rest.count)
            block.update(bufferPointer: UnsafeRawBufferPointer(rebasing: rest.prefix(take)))
            blockFill += take
            rest = rest.dropFirst(take)
            if blockFill == Self.blockSize { closeBlock() }
        }
    }

    /// Feeds the readable bytes of `buffer` (the buffer is not consumed).
    public mutating func update(_ buffer: ByteBuffer) {
        buffer.withUnsafeReadableBytes { update($0) }
    }

    /// Feeds `bytes`.
    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    private mutating func closeBlock() {
        let digest = block.finalize()
        digest.withUnsafeBytes { overall.update(bufferPointer: $0) }
        block = SHA256()
        blockFill = 0
    }

    /// The hex hash of everything fed so far; the hasher can keep going afterwards.
    public func finalize() -> String {
        var copy = self
        // A trailing partial block counts; an empty input hashes no blocks at all (e3b0c442...).
        if copy.blockFill > 0 { copy.closeBlock() }
        let hex = Array("0123456789abcdef".unicodeScalars)
        var out = ""
        out.reserveCapacity(64)
        for byte in copy.overall.finalize() {
            out.unicodeScalars.append(hex[Int(byte >> 4)])
            out.unicodeScalars.append(hex[Int(byte & 0xF)])
        }
        return out
    }
}
