import FerryCore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Looks at upload sources with `stat(2)`; results are cached per path for bulk enqueues. Not thread-safe: one
/// per enqueue. Here, next to the descriptors, because every enqueue path (apps through `FerryClient`, the CLI,
/// the worker settling jobs enqueued from SQL) validates upload sources the same way.
public final class LocalFileInspector {
    private var cache = [String: Result<SourceFileFacts, SourceFileFacts.Problem>]()

    public init() {}

    public func inspect(_ path: String) -> Result<SourceFileFacts, SourceFileFacts.Problem> {
        if let cached = cache[path] { return cached }
        let result = Self.examine(path)
        // Bounded: a streaming enqueue of millions of distinct files must not keep one entry per file.
        if cache.count >= 10_000 { cache.removeAll(keepingCapacity: true) }
        cache[path] = result
        return result
    }

    public static func examine(_ path: String) -> Result<SourceFileFacts, SourceFileFacts.Problem> {
        var info = stat()
        guard stat(path, &info) == 0 else {
            switch errno {
            case EACCES: return .failure(.permissionDenied)
            case ELOOP: return .failure(.symlinkLoop)
            case ENOENT, ENOTDIR: return .failure(.missing)
            default: return .failure(.unreadable)
            }
        }
        let type = info.st_mode & S_IFMT
        guard type == S_IFREG else {
            let kind =
                switch type {
                case S_IFDIR: "directory"
                case S_IFLNK: "symbolic link"
                case S_IFIFO: "pipe"
                case S_IFSOCK: "socket"
                case S_IFCHR, S_IFBLK: "device"
                default: "special file"
                }
            return .failure(.notRegularFile(kind: kind))
        }
        guard access(path, R_OK) == 0 else { return .failure(.permissionDenied) }
        let nanos = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        return .success(
            SourceFileFacts(
                size: Int64(info.st_size), modifiedNanoseconds: nanos, device: UInt64(info.st_dev),
                inode: UInt64(info.st_ino)))
    }
}
