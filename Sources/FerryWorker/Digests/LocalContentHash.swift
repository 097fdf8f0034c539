import Crypto
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Content hashes of files already on local disk, to tell whether a remote file is there already. Blocking: call
/// through `BlockingIO`. Each answers `nil` when there is no regular file at the path (symlinks are not
/// followed) or its size is not `size`: the cheap check first, so a file of another size is never read.
enum LocalContentHash {
    /// A provider's own content digest.
    static func digest(_ kind: ContentDigestKind, of path: String, size: Int64) -> String? {
        var hasher = kind.make()
        guard read(path, size: size, into: { hasher.update($0) }) else { return nil }
        return hasher.finalize()
    }

    /// MD5 (lowercase hex): an S3 object's plain ETag.
    static func md5(of path: String, size: Int64) -> String? {
        var hasher = Insecure.MD5()
        guard read(path, size: size, into: { hasher.update(bufferPointer: $0) }) else { return nil }
        return hasher.finalize().map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// SHA-256 (lowercase hex).
    static func sha256(of path: String, size: Int64) -> String? {
        var hasher = SHA256()
        guard read(path, size: size, into: { hasher.update(bufferPointer: $0) }) else { return nil }
        return hasher.finalize().map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// MD5 of an open file (an upload's source, opened through the local roots) of `size` bytes.
    static func md5(of file: OwnedFile, size: Int64) throws -> String? {
        var hasher = Insecure.MD5()
        guard try file.readPieces(size: size, { hasher.update(bufferPointer: $0) }) else { return nil }
        return hasher.finalize().map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// Whether two open files hold the same `size` bytes (compared piece by piece; the first difference ends it).
    static func sameContent(_ a: OwnedFile, _ b: OwnedFile, size: Int64) throws -> Bool {
        let piece = 1 << 20
        let left = UnsafeMutableRawBufferPointer.allocate(byteCount: piece, alignment: 16)
        let right = UnsafeMutableRawBufferPointer.allocate(byteCount: piece, alignment: 16)
        defer {
            left.deallocate()
            right.deallocate()
        }
        var offset: Int64 = 0
        while offset < size {
            let want = Int(min(Int64(piece), size - offset))
            let got = try a.read(into: UnsafeMutableRawBufferPointer(rebasing: left[..<want]), at: offset)
            guard got == want, try b.read(into: UnsafeMutableRawBufferPointer(rebasing: right[..<want]), at: offset) == want,
                memcmp(left.baseAddress!, right.baseAddress!, want) == 0
            else { return false }
            offset += Int64(want)
        }
        return true
    }

    /// The modification time (whole seconds) of the regular file at `path` when its size is `size`.
    static func modified(of path: String, size: Int64) -> Int64? {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, Int64(info.st_size) == size else { return nil }
        return Int64(info.st_mtim.tv_sec)
    }

    /// Feeds the file's bytes to `update` in 1 MiB pieces; false when it is not a regular file of `size` bytes.
    private static func read(_ path: String, size: Int64, into update: (UnsafeRawBufferPointer) -> Void) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, Int64(info.st_size) == size else { return false }
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var total: Int64 = 0
        while true {
            let count = Glibc.read(descriptor, buffer.baseAddress, chunk)
            if count < 0 {
                if errno == EINTR { continue }
                return false
            }
            if count == 0 { break }
            update(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            total += Int64(count)
        }
        return total == size
    }
}
