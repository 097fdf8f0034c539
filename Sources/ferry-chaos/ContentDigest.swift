import Crypto
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Digests of local files, computed here independently of Ferry's own code.
enum ContentDigest {
    /// Dropbox's `content_hash`: SHA-256 of the concatenated SHA-256 digests of each 4 MiB block.
    static func dropbox(_ path: String) throws -> String {
        var blocks = [UInt8]()
        try forEachBlock(path) { blocks += Array(SHA256.hash(data: $0)) }
        return hex(SHA256.hash(data: blocks))
    }

    static func sha256(_ path: String) throws -> String {
        var hasher = SHA256()
        try forEachBlock(path) { hasher.update(data: $0) }
        return hex(hasher.finalize())
    }

    /// Calls `body` with whole 4 MiB blocks (the last one shorter), however short the reads are.
    private static func forEachBlock(_ path: String, _ body: ([UInt8]) -> Void) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ChaosError("cannot read \(path): errno \(errno)") }
        defer { close(descriptor) }
        let blockSize = 4 * 1024 * 1024
        var block = [UInt8](repeating: 0, count: blockSize)
        while true {
            var filled = 0
            while filled < blockSize {
                let count = block.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + filled, blockSize - filled) }
                guard count >= 0 else { throw ChaosError("cannot read \(path): errno \(errno)") }
                if count == 0 { break }
                filled += count
            }
            if filled == 0 { return }
            body(Array(block[0..<filled]))
            if filled < blockSize { return }
        }
    }

    private static func hex(_ digest: SHA256.Digest) -> String {
        digest.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
