import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
@testable import FerryDropbox

/// Deterministic test bytes, streamed bodies and an independent content-hash reference.
enum TestData {
    /// `count` pseudo-random bytes (xorshift), the same for the same seed.
    static func bytes(_ count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> [UInt8] {
        var state = seed
        var out = [UInt8](repeating: 0, count: count)
        for index in 0..<count {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            out[index] = UInt8(truncatingIfNeeded: state >> 24)
        }
        return out
    }

    /// A streamed body sending `bytes` in pieces of `piece` bytes, with a known length.
    static func stream(_ bytes: [UInt8], piece: Int = 64 * 1024) -> HTTPClientRequest.Body {
        let pieces = stride(from: 0, to: bytes.count, by: piece).map { ByteBuffer(bytes: bytes[$0..<min($0 + piece, bytes.count)]) }
        let sequence = AsyncStream<ByteBuffer> { continuation in
            for buffer in pieces { continuation.yield(buffer) }
            continuation.finish()
        }
        return .stream(sequence, length: .known(Int64(bytes.count)))
    }

    /// Dropbox content hash written out directly from the definition, with Crypto's one-shot SHA-256.
    static func referenceHash(_ bytes: [UInt8]) -> String {
        var digests: [UInt8] = []
        for start in stride(from: 0, to: bytes.count, by: DropboxContentHasher.blockSize) {
            digests += Array(SHA256.hash(data: bytes[start..<min(start + DropboxContentHasher.blockSize, bytes.count)]))
        }
        return SHA256.hash(data: digests).map { String(format: "%02x", $0) }.joined()
    }

    /// Reads a download body completely.
    static func collect(_ download: DropboxDownload) async throws -> [UInt8] {
        var out: [UInt8] = []
        for try await buffer in download.body { out += buffer.readableBytesView }
        return out
    }
}
