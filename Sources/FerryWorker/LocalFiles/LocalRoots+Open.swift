import FerryCore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Opening what a job names, confined to the roots. Blocking: call through `BlockingIO`.
///
/// Folders are walked one component at a time from the root's descriptor (`openat` with `O_NOFOLLOW`), so a
/// component swapped for a symlink mid-walk is seen rather than followed. A symlink met on the way is followed
/// only if what it leads to lies in a root, judged by the real path of the descriptor actually opened (the kernel's
/// `/proc/self/fd` link), never by a path checked first and opened afterwards.
extension LocalRoots {
    /// The folder `path`, created (with missing parents, mode 0755 less the umask) when `create`.
    func openDirectory(_ path: String, create: Bool, role: String) throws -> OwnedFile {
        try check(path, role: role)
        guard let root = root(lexicallyContaining: path) else { throw outside(path, role: role) }
        let base = base(of: path, in: root)
        let normalized = SafePath.normalize(path) ?? path
        let rest = normalized.dropFirst(base == "/" ? 1 : base.count).split(separator: "/").map(String.init)
        // The root itself is the operator's (trusted as configured), opened by its real path.
        var folder = try OwnedFile(path: root.real, flags: O_RDONLY | O_DIRECTORY)
        var walked = root.real
        for name in rest {
            walked += (walked.hasSuffix("/") ? "" : "/") + name
            folder = try openChildDirectory(name, in: folder, walked: walked, create: create, role: role)
        }
        try confirm(folder, path: path, role: role)
        return folder
    }

    private func openChildDirectory(_ name: String, in parent: OwnedFile, walked: String, create: Bool, role: String) throws -> OwnedFile {
        let flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC
        var fd = openat(parent.descriptor, name, flags | O_NOFOLLOW)
        if fd < 0 && errno == ENOENT && create {
            if mkdirat(parent.descriptor, name, 0o755) != 0 && errno != EEXIST {
                throw Self.classify(POSIXFailure(operation: "mkdir", path: walked, code: errno), role: role)
            }
            fd = openat(parent.descriptor, name, flags | O_NOFOLLOW)
        }
        if fd < 0 && (errno == ELOOP || errno == ENOTDIR) {
            // A symlink (or not a folder): followed, and kept only if it leads into a root.
            fd = openat(parent.descriptor, name, flags)
            if fd >= 0 {
                let child = OwnedFile(descriptor: fd, path: walked)
                try confirm(child, path: walked, role: role)
                return child
            }
        }
        guard fd >= 0 else { throw Self.classify(POSIXFailure(operation: "open", path: walked, code: errno), role: role) }
        return OwnedFile(descriptor: fd, path: walked)
    }

    /// An upload source: a regular file in a root, opened read-only. A FIFO or device is never read from (it is
    /// opened non-blocking and refused by type before any read).
    func openSource(_ path: String) throws -> OwnedFile {
        try check(path, role: "source")
        let (folderPath, name) = Self.split(path)
        guard SafePath.component(name) != nil else {
            throw JobFailure.permanent("unsafe_path", "the source \(path) does not name a file")
        }
        let folder = try openDirectory(folderPath, create: false, role: "source")
        let flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC
        var fd = openat(folder.descriptor, name, flags | O_NOFOLLOW)
        if fd < 0 && errno == ELOOP {
            // A symlink: its target must resolve into a root before it is opened, and the opened file is checked
            // again below (the link may change in between).
            guard let real = Self.realPath(path) else {
                throw Self.classify(POSIXFailure(operation: "open", path: path, code: errno), role: "source")
            }
            guard contains(realPath: real) else { throw outside(path, role: "source") }
            fd = openat(folder.descriptor, name, flags)
        }
        guard fd >= 0 else { throw Self.classify(POSIXFailure(operation: "open", path: path, code: errno), role: "source") }
        let file = OwnedFile(descriptor: fd, path: path)
        try confirm(file, path: path, role: "source")
        let info = try file.status()
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw JobFailure.permanent("source_not_file", "the source \(path) is not a regular file")
        }
        // Regular files ignore O_NONBLOCK for reads, but clear it anyway: the descriptor outlives this check.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return file
    }

    /// Refuses a descriptor whose real path lies outside every root.
    func confirm(_ file: OwnedFile, path: String, role: String) throws {
        guard !isUnconfined else { return }
        guard let real = Self.realPath(ofDescriptor: file.descriptor), contains(realPath: real) else {
            throw outside(path, role: role)
        }
    }

    /// The real path of an open descriptor as the kernel reports it; `nil` without `/proc`.
    static func realPath(ofDescriptor fd: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/fd/\(fd)", &buffer, Int(PATH_MAX))
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // A deleted file or an unreachable path is not a real path.
        guard text.hasPrefix("/"), !text.hasSuffix(" (deleted)") else { return nil }
        return text
    }

    /// `/a/b/c.jpg` → (`/a/b`, `c.jpg`).
    static func split(_ path: String) -> (folder: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return ("/", path) }
        let folder = String(path[..<slash])
        return (folder.isEmpty ? "/" : folder, String(path[path.index(after: slash)...]))
    }

    /// What a failed walk or open means for the job: all permanent but an I/O error.
    static func classify(_ error: POSIXFailure, role: String) -> JobFailure {
        if let shortage = JobFailure.shortage(of: error) { return shortage }
        if error.code == ELOOP {
            return .permanent("symlink_loop", "\(error.path): too many levels of symbolic links (a symlink loop)")
        }
        if role == "source" {
            switch error.code {
            case ENOENT, ENOTDIR: return .permanent("source_missing", "\(error.path) no longer exists")
            case EACCES, EPERM: return .permanent("source_unreadable", "\(error.path) cannot be read (permission denied)")
            default: break
            }
        }
        switch error.code {
        case EACCES, EPERM, EROFS, ENOTDIR, EISDIR, ENOENT: return .permanent("destination_unwritable", error.description)
        default: return .retryable("io_error", error.description)
        }
    }
}
