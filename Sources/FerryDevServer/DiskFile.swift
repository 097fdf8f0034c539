#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore

/// Thin wrapper over a POSIX file descriptor (closed on deinit): positioned reads and writes straight from and
/// into `ByteBuffer`s, so request bodies go to disk without extra copies or whole-file buffers.
final class DiskFile: Sendable {
    struct IOError: Error, CustomStringConvertible {
        var operation: String
        var path: String
        var code: Int32
        var description: String { "\(operation) \(path): errno \(code)" }
    }

    let descriptor: Int32
    let path: String

    /// Opens for reading.
    static func openForReading(_ path: String) throws -> DiskFile {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw IOError(operation: "open", path: path, code: errno) }
        return DiskFile(descriptor: fd, path: path)
    }

    /// Opens for writing, creating the file if needed (never truncating unless asked: sessions append).
    static func openForWriting(_ path: String, truncate: Bool = false) throws -> DiskFile {
        let fd = open(path, O_WRONLY | O_CREAT | (truncate ? O_TRUNC : 0), 0o644)
        guard fd >= 0 else { throw IOError(operation: "open", path: path, code: errno) }
        return DiskFile(descriptor: fd, path: path)
    }

    private init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit { close(descriptor) }

    /// Writes the whole buffer at `offset`.
    func write(_ buffer: ByteBuffer, at offset: Int64) throws {
        try buffer.withUnsafeReadableBytes { raw in
            guard let base = raw.baseAddress else { return }
            var done = 0
            while done < raw.count {
                let n = pwrite(descriptor, base + done, raw.count - done, off_t(offset) + off_t(done))
                if n < 0 {
                    if errno == EINTR { continue }
                    throw IOError(operation: "write", path: path, code: errno)
                }
                done += n
            }
        }
    }

    /// Reads up to `count` bytes at `offset`; an empty buffer means end of file.
    func read(at offset: Int64, count: Int) throws -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: count)
        guard count > 0 else { return buffer }
        let n = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { raw -> Int in
            guard let base = raw.baseAddress else { return 0 }
            while true {
                let n = pread(descriptor, base, count, off_t(offset))
                if n < 0 {
                    if errno == EINTR { continue }
                    throw IOError(operation: "read", path: path, code: errno)
                }
                return n
            }
        }
        _ = n
        return buffer
    }

    /// Cuts the file back to `length` bytes (undoing a partially received chunk).
    func truncate(to length: Int64) throws {
        guard ftruncate(descriptor, off_t(length)) == 0 else {
            throw IOError(operation: "truncate", path: path, code: errno)
        }
    }

    /// Size of the file on disk.
    func size() throws -> Int64 {
        var st = stat()
        guard fstat(descriptor, &st) == 0 else { throw IOError(operation: "stat", path: path, code: errno) }
        return Int64(st.st_size)
    }

    /// What `fstat` says about the open file: enough for validators (`ETag`, `Last-Modified`).
    struct Status: Sendable, Equatable {
        var size: Int64
        var inode: UInt64
        var modifiedSeconds: Int64
        var modifiedNanoseconds: Int64
        var isRegularFile: Bool
    }

    /// Size, inode and modification time of the open file (so validators match the bytes sent).
    func status() throws -> Status {
        var st = stat()
        guard fstat(descriptor, &st) == 0 else { throw IOError(operation: "stat", path: path, code: errno) }
        #if canImport(Darwin)
        let modified = st.st_mtimespec
        #else
        let modified = st.st_mtim
        #endif
        return Status(size: Int64(st.st_size), inode: UInt64(st.st_ino), modifiedSeconds: Int64(modified.tv_sec),
                      modifiedNanoseconds: Int64(modified.tv_nsec), isRegularFile: (st.st_mode & S_IFMT) == S_IFREG)
    }

    /// Sets the modification (and access) time to whole `seconds` since 1970.
    func setModificationTime(seconds: Int64) throws {
        var times = [timespec(tv_sec: time_t(seconds), tv_nsec: 0), timespec(tv_sec: time_t(seconds), tv_nsec: 0)]
        guard futimens(descriptor, &times) == 0 else { throw IOError(operation: "futimens", path: path, code: errno) }
    }

    /// Streams the file through a content hasher in 1 MiB reads.
    static func contentHash(ofFileAt path: String) throws -> (hash: String, size: Int64) {
        let file = try DiskFile.openForReading(path)
        var hasher = ContentHasher()
        var offset: Int64 = 0
        while true {
            let chunk = try file.read(at: offset, count: 1 << 20)
            if chunk.readableBytes == 0 { break }
            hasher.update(chunk)
            offset += Int64(chunk.readableBytes)
        }
        return (hasher.finalize(), offset)
    }
}
