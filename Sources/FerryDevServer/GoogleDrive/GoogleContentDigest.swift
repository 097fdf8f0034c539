import Crypto
import NIOCore

/// MD5 and SHA-256 of a file's bytes, fed as they arrive (Drive reports both, lowercase hex).
struct GoogleContentDigest: Sendable {
    private var md5 = Insecure.MD5()
    private var sha256 = SHA256()

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        md5.update(bufferPointer: bytes)
        sha256.update(bufferPointer: bytes)
    }

    mutating func update(_ buffer: ByteBuffer) {
        buffer.withUnsafeReadableBytes { update($0) }
    }

    /// The checksums of what was fed, as staged content at `path`.
    mutating func staged(path: String, size: Int64) -> GoogleStagedContent {
        GoogleStagedContent(path: path, size: size, md5: Self.hex(md5.finalize()), sha256: Self.hex(sha256.finalize()))
    }

    static func hex<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in digest {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Checksums of a whole file on disk, read in 1 MiB pieces.
    static func ofFile(at path: String) throws -> GoogleStagedContent {
        let file = try DiskFile.openForReading(path)
        var digest = GoogleContentDigest()
        var offset: Int64 = 0
        while true {
            let chunk = try file.read(at: offset, count: 1 << 20)
            if chunk.readableBytes == 0 { break }
            digest.update(chunk)
            offset += Int64(chunk.readableBytes)
        }
        return digest.staged(path: path, size: offset)
    }
}
