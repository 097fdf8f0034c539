import Crypto
import NIOCore

/// Dropbox content hash, computed incrementally: SHA-256 of every 4 MiB block, then SHA-256
/// of the concatenated block digests, as lowercase hex. Streaming keeps memory flat for
/// files of any size.
struct ContentHasher: Sendable {
    static let blockSize = 4 * 1024 * 1024

    private var overall = SHA256()
    private var block = SHA256()
    private var blockFill = 0

    /// Feeds the next bytes of the file.
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var rest = bytes[...]
        while !rest.isEmpty {
            let take = min(Self.blockSize - blockFill, rest.count)
            block.update(bufferPointer: UnsafeRawBufferPointer(rebasing: rest.prefix(take)))
            blockFill += take
            rest = rest.dropFirst(take)
            if blockFill == Self.blockSize { closeBlock() }
        }
    }

    mutating func update(_ buffer: ByteBuffer) {
        buffer.withUnsafeReadableBytes { update($0) }
    }

    private mutating func closeBlock() {
        let digest = block.finalize()
        digest.withUnsafeBytes { overall.update(bufferPointer: $0) }
        block = SHA256()
        blockFill = 0
    }

    /// The hex hash of everything fed so far (the hasher itself is left untouched).
    func finalize() -> String {
        var copy = self
        if copy.blockFill > 0 { copy.closeBlock() }
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(64)
        for byte in copy.overall.finalize() {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: hex, as: UTF8.self)
    }
}
