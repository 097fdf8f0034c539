import FerryCore
import FerryProviders
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A local folder listed a batch at a time, for ``RemoteLister``s of local folders: one open directory per level of
/// the current path (depth first), subfolders opened relative to their parent with `O_NOFOLLOW`, entries examined
/// with `fstatat(AT_SYMLINK_NOFOLLOW)`. Symbolic links, special files and names that are not UTF-8 are skipped and
/// counted: a listing shows regular files and folders only, and never leaves the folder it was given.
///
/// Blocking: each ``next(_:)`` runs through `BlockingIO`. One task uses a walk at a time (hence `@unchecked`).
final class LocalFolderWalk: @unchecked Sendable {
    private struct Level {
        let stream: OpaquePointer
        /// Path below the listed folder, with a trailing `/` (empty for the folder itself).
        let relative: String
    }

    private var stack = [Level]()
    private let options: RemoteListOptions
    /// The listed folder's absolute path, with a trailing `/`.
    let base: String
    private(set) var skipped = 0

    /// Starts at the folder opened as `folder` (its descriptor is duplicated: the caller keeps its own).
    init(folder: OwnedFile, base: String, options: RemoteListOptions) throws {
        self.options = options
        self.base = base.hasSuffix("/") ? base : base + "/"
        let fd = dup(folder.descriptor)
        guard fd >= 0, let stream = fdopendir(fd) else {
            if fd >= 0 { close(fd) }
            throw POSIXFailure(operation: "opendir", path: base, code: errno)
        }
        stack.append(Level(stream: stream, relative: ""))
    }

    deinit {
        for level in stack { closedir(level.stream) }
    }

    /// Up to `limit` more entries; empty when the walk is over.
    func next(_ limit: Int) throws -> [RemoteEntry] {
        var entries = [RemoteEntry]()
        while entries.count < limit, let current = stack.last {
            errno = 0
            guard let found = readdir(current.stream) else {
                if errno != 0 { throw POSIXFailure(operation: "readdir", path: base + current.relative, code: errno) }
                closedir(current.stream)
                stack.removeLast()
                continue
            }
            let bytes = withUnsafeBytes(of: found.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            if bytes == [46] || bytes == [46, 46] { continue }
            guard let name = String(validating: bytes, as: UTF8.self) else {
                if options.strict {
                    throw RemoteListingError(
                        .notReadable, "\(base + current.relative) holds a name that is not UTF-8",
                        fix: "rename the file; a sync never deletes after a listing that missed one")
                }
                skipped += 1
                continue
            }
            if let entry = try examine(name, in: current) { entries.append(entry) }
        }
        return entries
    }

    private func examine(_ name: String, in level: Level) throws -> RemoteEntry? {
        var info = stat()
        guard fstatat(dirfd(level.stream), name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
            skipped += 1
            return nil
        }
        let relative = level.relative + name
        let reference = FileURL.text(of: base + relative)
        let modified = Date(timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec) + TimeInterval(info.st_mtim.tv_nsec) / 1e9)
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            return RemoteEntry(path: relative, isFolder: false, size: Int64(info.st_size), modified: modified, reference: reference)
        case S_IFDIR:
            let depth = relative.split(separator: "/").count
            if options.recursive && depth >= options.maxDepth && options.filter.descends(into: relative) { throw RemoteListingError.tooDeep(options) }
            if options.descends(into: relative, depth: depth) {
                let fd = openat(dirfd(level.stream), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                if fd >= 0, let stream = fdopendir(fd) {
                    stack.append(Level(stream: stream, relative: relative + "/"))
                } else {
                    let code = errno
                    if fd >= 0 { close(fd) }
                    if options.strict {
                        throw RemoteListingError(
                            .notReadable, "\(base + relative) cannot be read (\(String(cString: strerror(code))))",
                            fix: "make the folder readable to the worker, or leave it out with --exclude")
                    }
                    skipped += 1
                }
            }
            return RemoteEntry(path: relative, isFolder: true, size: nil, modified: modified, reference: reference + "/")
        default:
            skipped += 1
            return nil
        }
    }
}
