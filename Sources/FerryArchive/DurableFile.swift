import Foundation

/// File steps that survive a crash: sync the data, rename atomically, sync the directory.
enum DurableFile {
    /// Writes `data` to `path` through a temporary file, so `path` is either absent or complete.
    static func write(_ data: Data, to path: String) throws {
        let temporary = path + ".tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o640)
        guard descriptor >= 0 else { throw failure("cannot create \(temporary)") }
        defer { close(descriptor) }
        try data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let count = Foundation.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    throw failure("writing \(temporary) failed")
                }
                offset += count
            }
        }
        guard fsync(descriptor) == 0 else { throw failure("cannot sync \(temporary)") }
        try rename(temporary, to: path)
    }

    /// Renames `from` to `to` and syncs the directory, so the new name survives a crash.
    static func rename(_ from: String, to: String) throws {
        guard Foundation.rename(from, to) == 0 else { throw failure("cannot rename \(from) to \(to)") }
        try syncDirectory(of: to)
    }

    static func syncDirectory(of path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        let descriptor = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure("cannot open directory \(directory)") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw failure("cannot sync directory \(directory)") }
    }

    private static func failure(_ what: String) -> ArchiveError {
        ArchiveError(.io, "\(what): \(String(cString: strerror(errno)))", fix: "check the directory's permissions and free space")
    }
}
