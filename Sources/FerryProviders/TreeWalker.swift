import FerryCore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Walks a directory tree for `ferry enqueue upload DIR --recursive`, streaming: one open directory per level of
/// the current path and nothing else is kept, so a tree of millions of files costs no more memory than one of
/// ten. Entries come in the order the file system lists them.
///
/// Directories are opened relative to their parent (`openat` with `O_NOFOLLOW`, then `fdopendir`) and entries are
/// examined with `fstatat(AT_SYMLINK_NOFOLLOW)`, so a symbolic link is never followed unless asked. Policy:
/// - symbolic links are skipped and reported; with `followSymlinks` they are followed (a file's job reads the
///   link's real path), a link to a directory already on the current path (device and inode) is a loop and is
///   skipped and reported, and a broken link is skipped and reported;
/// - unreadable files and directories, pipes, sockets, devices and names that are not UTF-8 are problems (the
///   enqueue is refused naming each) unless `skipUnreadable`, when they are skipped and reported;
/// - the filter decides on each file by its path relative to the root, its size and its modification time, and a
///   directory it excludes whole is not read.
///
/// Blocking system calls: run it on a thread of its own (the enqueue reader, `BlockingIO`), never on the
/// cooperative pool. Here, beside `LocalFileInspector`, because both enqueue paths use it (`FerryClient`'s streamed
/// enqueue, which `ferry enqueue upload DIR --recursive` calls) and so does a worker running a tree upload.
public struct TreeWalker: Sendable {
    /// What the walk found.
    public enum Entry: Sendable {
        /// A file to upload: its path below the root, the path to read it from, and what was seen of it.
        case file(relative: String, source: String, facts: SourceFileFacts)
        /// Left out: by the filter (`filtered`), or a link, a loop, an unreadable or special file that the policy skips.
        case skipped(relative: String, reason: String, filtered: Bool)
        /// Cannot be uploaded: the enqueue is refused.
        case problem(relative: String, problem: String, fix: String)
    }

    public var filter: FileFilter
    public var followSymlinks: Bool
    public var skipUnreadable: Bool

    public init(filter: FileFilter, followSymlinks: Bool, skipUnreadable: Bool) {
        self.filter = filter
        self.followSymlinks = followSymlinks
        self.skipUnreadable = skipUnreadable
    }

    private final class Level {
        let stream: OpaquePointer
        /// Path below the root, with a trailing `/` (empty for the root).
        let relative: String
        /// Absolute path to read entries from, with a trailing `/`.
        let absolute: String
        let device: UInt64
        let inode: UInt64

        init(stream: OpaquePointer, relative: String, absolute: String, device: UInt64, inode: UInt64) {
            self.stream = stream
            self.relative = relative
            self.absolute = absolute
            self.device = device
            self.inode = inode
        }
    }

    /// Walks the directory at `root` (absolute). `visit` returns false to stop the walk. A root that cannot be read
    /// is reported as a problem with an empty relative path.
    public func walk(root: String, _ visit: (Entry) -> Bool) {
        var stack = [Level]()
        defer { for level in stack { closedir(level.stream) } }
        let descriptor = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0, let level = Self.level(descriptor, relative: "", absolute: root.hasSuffix("/") ? root : root + "/") else {
            _ = visit(.problem(relative: "", problem: "cannot read the folder (\(String(cString: strerror(errno))))", fix: "make it readable by the user that runs ferry"))
            return
        }
        stack.append(level)

        while let current = stack.last {
            errno = 0
            guard let entry = readdir(current.stream) else {
                if errno != 0 {
                    let what = "reading the folder failed (\(String(cString: strerror(errno))))"
                    if !visit(unreadable(current.relative, what)) { return }
                }
                closedir(current.stream)
                stack.removeLast()
                continue
            }
            let nameBytes = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                Array(raw.prefix { $0 != 0 })
            }
            if nameBytes == [46] || nameBytes == [46, 46] { continue }
            guard let name = String(validating: nameBytes, as: UTF8.self) else {
                let shown = String(decoding: nameBytes, as: UTF8.self)
                // A name that cannot be a job's path is left out like an unreadable file when asked to skip those.
                let entry: Entry =
                    skipUnreadable
                    ? .skipped(relative: current.relative + shown, reason: "the file name is not UTF-8", filtered: false)
                    : .problem(
                        relative: current.relative + shown, problem: "the file name is not UTF-8",
                        fix: "rename it (convmv can convert a tree's names), exclude it, or give --skip-unreadable to leave it out")
                if !visit(entry) { return }
                continue
            }
            let (found, child) = examine(name, in: current, stack: stack)
            if let child { stack.append(child) }
            if let found, !visit(found) { return }
        }
    }

    private func unreadable(_ relative: String, _ what: String) -> Entry {
        skipUnreadable
            ? .skipped(relative: relative, reason: what, filtered: false)
            : .problem(relative: relative, problem: what, fix: "make it readable by the user that runs ferry, or give --skip-unreadable to leave it out")
    }

    /// What the entry `name` of the folder `current` comes to: an entry to report (`nil`: nothing, it went away),
    /// or a folder to read next (`stack` is the current path, for loops).
    private func examine(_ name: String, in current: Level, stack: [Level]) -> (entry: Entry?, descend: Level?) {
        let relative = current.relative + name
        let path = current.absolute + name
        var info = stat()
        guard fstatat(dirfd(current.stream), name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
            if errno == ENOENT { return (nil, nil) }  // removed while we walk
            return (unreadable(relative, "cannot be examined (\(String(cString: strerror(errno))))"), nil)
        }
        var source = path
        if info.st_mode & S_IFMT == S_IFLNK {
            let (real, skipped) = followLink(relative: relative, path: path, info: &info)
            guard let real else { return (skipped, nil) }
            source = real
        }
        switch info.st_mode & S_IFMT {
        case S_IFDIR:
            return folder(name, relative: relative, path: path, source: source, info: info, in: current, stack: stack)
        case S_IFREG:
            return (file(relative: relative, source: source, info: info), nil)
        default:
            return (special(relative: relative, mode: info.st_mode), nil)
        }
    }

    /// A symbolic link: followed when asked (`info` becoming its target's), answering the target's real path; else
    /// the entry that skips it (not followed, broken, a loop, or a target that cannot be resolved).
    private func followLink(relative: String, path: String, info: inout stat) -> (source: String?, skipped: Entry?) {
        guard followSymlinks else {
            return (nil, .skipped(relative: relative, reason: "symbolic link (give --follow-symlinks to follow it)", filtered: false))
        }
        guard stat(path, &info) == 0 else {
            let reason =
                switch errno {
                case ELOOP: "symbolic link loop (too many levels of symbolic links)"
                case ENOENT, ENOTDIR: "broken symbolic link (its target does not exist)"
                default: "symbolic link whose target cannot be examined (\(String(cString: strerror(errno))))"
                }
            return (nil, .skipped(relative: relative, reason: reason, filtered: false))
        }
        guard let real = realpath(path, nil) else {
            return (nil, .skipped(relative: relative, reason: "symbolic link whose target cannot be resolved", filtered: false))
        }
        defer { free(real) }
        return (String(cString: real), nil)
    }

    /// A folder: read next (opened relative to its parent unless reached through a link), or skipped (a loop back
    /// up the current path, excluded by the filter, or unreadable).
    private func folder(
        _ name: String, relative: String, path: String, source: String, info: stat, in current: Level, stack: [Level]
    ) -> (entry: Entry?, descend: Level?) {
        if let loop = stack.first(where: { $0.device == UInt64(info.st_dev) && $0.inode == UInt64(info.st_ino) }) {
            let target = loop.relative.isEmpty ? "the root of the tree" : String(loop.relative.dropLast())
            return (.skipped(relative: relative, reason: "symbolic link loop: leads back to \(target)", filtered: false), nil)
        }
        guard filter.descends(into: relative) else {
            return (.skipped(relative: relative + "/", reason: "folder excluded by the filter (not read)", filtered: true), nil)
        }
        let child =
            source == path
            ? openat(dirfd(current.stream), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            : open(source, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard child >= 0, let level = Self.level(child, relative: relative + "/", absolute: source + "/") else {
            let what =
                errno == EMFILE
                ? "the folder is nested too deeply to read (too many open files)"
                : "folder cannot be read (\(String(cString: strerror(errno))))"
            return (unreadable(relative + "/", what), nil)
        }
        return (nil, level)
    }

    /// A regular file: to upload, or skipped by the filter, or unreadable.
    private func file(relative: String, source: String, info: stat) -> Entry {
        let modified = Date(timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec) + TimeInterval(info.st_mtim.tv_nsec) / 1e9)
        if case .skip(let reason) = filter.verdict(path: relative, size: Int64(info.st_size), modified: modified) {
            return .skipped(relative: relative, reason: reason, filtered: true)
        }
        guard access(source, R_OK) == 0 else {
            return unreadable(relative, "cannot be read (\(String(cString: strerror(errno))))")
        }
        let facts = SourceFileFacts(
            size: Int64(info.st_size),
            modifiedNanoseconds: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec),
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        return .file(relative: relative, source: source, facts: facts)
    }

    /// A pipe, socket, device or other special file: skipped by the filter, else a problem (or skipped when asked).
    private func special(relative: String, mode: mode_t) -> Entry {
        let kind =
            switch mode & S_IFMT {
            case S_IFIFO: "pipe (FIFO)"
            case S_IFSOCK: "socket"
            case S_IFCHR, S_IFBLK: "device"
            default: "special file"
            }
        // A filter that leaves the path out settles it before its kind matters.
        if case .skip(let reason) = filter.verdict(path: relative) {
            return .skipped(relative: relative, reason: reason, filtered: true)
        }
        return skipUnreadable
            ? .skipped(relative: relative, reason: "a \(kind), not a regular file", filtered: false)
            : .problem(relative: relative, problem: "a \(kind), not a regular file", fix: "leave it out with --exclude, or give --skip-unreadable to skip such files")
    }

    private static func level(_ descriptor: Int32, relative: String, absolute: String) -> Level? {
        var info = stat()
        guard fstat(descriptor, &info) == 0, let stream = fdopendir(descriptor) else {
            let saved = errno
            close(descriptor)
            errno = saved
            return nil
        }
        return Level(stream: stream, relative: relative, absolute: absolute, device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }
}
