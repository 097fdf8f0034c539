import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A file descriptor with one owner: closed exactly once, in `deinit`.
final class OwnedFile: @unchecked Sendable {
    let descriptor: Int32
    let path: String

    /// Opens `path`; throws `errno` wrapped in `POSIXFailure`.
    init(path: String, flags: Int32, mode: mode_t = 0o644) throws {
        let fd = open(path, flags | O_CLOEXEC, mode)
        guard fd >= 0 else { throw POSIXFailure(operation: "open", path: path, code: errno) }
        self.descriptor = fd
        self.path = path
    }

    /// Takes ownership of an open descriptor.
    init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit {
        close(descriptor)
    }

    /// Opens `name` in this folder (`openat`): never leaves the folder, whatever the path outside it does now.
    func openChild(_ name: String, flags: Int32, mode: mode_t) throws -> OwnedFile {
        let fd = openat(descriptor, name, flags | O_CLOEXEC, mode)
        guard fd >= 0 else { throw POSIXFailure(operation: "open", path: path + "/" + name, code: errno) }
        return OwnedFile(descriptor: fd, path: path + "/" + name)
    }

    /// Renames `name` to `newName` within this folder (`renameat`).
    func renameChild(_ name: String, to newName: String) throws {
        guard renameat(descriptor, name, descriptor, newName) == 0 else {
            throw POSIXFailure(operation: "rename", path: path + "/" + newName, code: errno)
        }
    }

    /// Removes the file `name` in this folder, if there (`unlinkat`).
    func removeChild(_ name: String) {
        _ = unlinkat(descriptor, name, 0)
    }

    /// Sets the permission bits (`fchmod`).
    func setMode(_ mode: mode_t) throws {
        guard fchmod(descriptor, mode) == 0 else { throw POSIXFailure(operation: "chmod", path: path, code: errno) }
    }

    /// Sets the modification time (`futimens`; the access time becomes now).
    func setModificationTime(_ date: Date) throws {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        try setModificationTime(nanoseconds: Int64(seconds) * 1_000_000_000 + Int64((date.timeIntervalSince1970 - seconds) * 1_000_000_000))
    }

    /// Sets the modification time to `nanoseconds` since 1970, exactly (a copy keeps its source's).
    func setModificationTime(nanoseconds: Int64) throws {
        let (seconds, fraction) = nanoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
        var times = [
            // UTIME_NOW ((1 << 30) - 1) is a macro Swift does not import.
            timespec(tv_sec: 0, tv_nsec: (1 << 30) - 1),
            timespec(tv_sec: Int(seconds), tv_nsec: Int(fraction)),
        ]
        guard futimens(descriptor, &times) == 0 else { throw POSIXFailure(operation: "set the modification time of", path: path, code: errno) }
    }

    func status() throws -> stat {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw POSIXFailure(operation: "stat", path: path, code: errno) }
        return info
    }

    /// Reads up to `count` bytes at `offset` (fewer only at end of file) into an array of that capacity, not
    /// zero-filled first. Cap `count` to what is left of the file: the capacity is allocated whatever the size.
    func read(at offset: Int64, count: Int) throws -> [UInt8] {
        try [UInt8](unsafeUninitializedCapacity: count) { raw, initialized in
            initialized = try read(into: UnsafeMutableRawBufferPointer(raw), at: offset)
        }
    }

    /// Fills `buffer` from `offset` (`pread`, retried on short reads); returns the bytes read, fewer than
    /// `buffer.count` only at end of file.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        var filled = 0
        while filled < buffer.count {
            let n = pread(descriptor, buffer.baseAddress! + filled, buffer.count - filled, off_t(offset) + off_t(filled))
            if n < 0 {
                if errno == EINTR { continue }
                throw POSIXFailure(operation: "read", path: path, code: errno)
            }
            if n == 0 { break }
            filled += n
        }
        return filled
    }

    /// Writes all of `bytes` at `offset` (`pwrite`, retried on short writes).
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws {
        var written = 0
        while written < bytes.count {
            let n = pwrite(descriptor, bytes.baseAddress! + written, bytes.count - written, off_t(offset) + off_t(written))
            if n < 0 {
                if errno == EINTR { continue }
                throw POSIXFailure(operation: "write", path: path, code: errno)
            }
            written += n
        }
    }

    func write(_ bytes: [UInt8], at offset: Int64) throws {
        try bytes.withUnsafeBytes { try write($0, at: offset) }
    }

    func truncate(to size: Int64) throws {
        guard ftruncate(descriptor, off_t(size)) == 0 else { throw POSIXFailure(operation: "truncate", path: path, code: errno) }
    }

    func sync() throws {
        guard fsync(descriptor) == 0 else { throw POSIXFailure(operation: "fsync", path: path, code: errno) }
    }

    /// Syncs the data and what is needed to read it back (the length), not the timestamps.
    func syncData() throws {
        guard fdatasync(descriptor) == 0 else { throw POSIXFailure(operation: "fdatasync", path: path, code: errno) }
    }

    /// Starts writing `count` bytes at `offset` to disk without waiting for them (Linux `sync_file_range`), so
    /// a stream of writes does not leave a backlog of dirty pages for the next `fsync` to wait for. Best effort:
    /// a failure shows at that `fsync`.
    func startWriteback(at offset: Int64, count: Int) {
        #if canImport(Glibc)
            _ = linuxSyncFileRange(descriptor, offset, Int64(count), 2)  // SYNC_FILE_RANGE_WRITE
        #endif
    }
}

#if canImport(Glibc)
    /// Linux's `sync_file_range(2)`, which the Glibc module does not import (it needs `_GNU_SOURCE`).
    @_silgen_name("sync_file_range")
    private func linuxSyncFileRange(_ descriptor: Int32, _ offset: Int64, _ count: Int64, _ flags: UInt32) -> Int32
#endif

/// A failed system call, with the operation, path and errno.
struct POSIXFailure: Error, CustomStringConvertible {
    let operation: String
    let path: String
    let code: Int32

    var description: String { "\(operation) \(path): \(String(cString: strerror(code)))" }
}
