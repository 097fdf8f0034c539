import FerryDropbox
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Content hashes of files already on local disk, to tell whether a remote file is there already. Blocking: call
/// through `BlockingIO`.
enum LocalContentHash {
    /// Dropbox's `content_hash` of the regular file at `path`, or nil when there is none there, or its size is
    /// not `size` (the cheap check first: a file of another size is never read).
    static func dropbox(of path: String, size: Int64) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, Int64(info.st_size) == size else { return nil }
        var hasher = DropboxContentHasher()
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var total: Int64 = 0
        while true {
            let count = read(descriptor, buffer.baseAddress, chunk)
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { break }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            total += Int64(count)
        }
        return total == size ? hasher.finalize() : nil
    }
}
