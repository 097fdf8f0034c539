import FerryCore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The folders a worker may read upload sources from and write fetched files and local copies into
/// (`ferry worker --local-root DIR`).
///
/// Jobs come from producers, and producers must not steer a worker to files its own user can reach but the
/// producer should not (the worker's key file, SSH keys, `/etc/shadow` when it runs as root). Every local path a
/// job names is checked twice: lexically when the job is claimed (a clear permanent failure before anything is
/// opened), and against the real path of what was actually opened (`LocalRoots+Open`), so a symlink or a path
/// swapped between the two checks cannot lead outside.
public struct LocalRoots: Sendable, Equatable {
    /// One configured root: as written (jobs name paths the way the operator does) and as the real path.
    public struct Root: Sendable, Equatable {
        public var spelled: String
        public var real: String
    }

    public let roots: [Root]
    /// `--any-local-path`: every path the worker's OS user can reach (single-user setups only).
    public let isUnconfined: Bool

    /// No confinement: the root is `/`. `..` is still refused and files are still opened through the same walk.
    public static let unconfined = LocalRoots(roots: [Root(spelled: "/", real: "/")], isUnconfined: true)

    /// No roots: every local path is refused (a worker that only runs scripted handlers).
    public static let none = LocalRoots(roots: [], isUnconfined: false)

    private init(roots: [Root], isUnconfined: Bool) {
        self.roots = roots
        self.isUnconfined = isUnconfined
    }

    /// Roots from the folders given: each must exist and be a folder; symlinks in them are resolved now, once.
    public init(directories: [String]) throws(LocalRootsError) {
        var roots = [Root]()
        for directory in directories {
            guard directory.hasPrefix("/") else { throw LocalRootsError(directory: directory, problem: "is not an absolute path", fix: "write it from /") }
            guard !SafePath.hasDotDot(directory) else { throw LocalRootsError(directory: directory, problem: "contains ..", fix: "write the folder's real path") }
            guard let real = Self.realPath(directory) else {
                throw LocalRootsError(directory: directory, problem: "does not exist or cannot be reached", fix: "create it, or fix the path")
            }
            var info = stat()
            guard stat(real, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
                throw LocalRootsError(directory: directory, problem: "is not a folder", fix: "give the folder that holds the files")
            }
            let spelled = SafePath.normalize(directory) ?? directory
            roots.append(Root(spelled: spelled, real: real))
        }
        guard !roots.isEmpty else {
            throw LocalRootsError(directory: "", problem: "no local roots given", fix: "give --local-root DIR (repeatable)")
        }
        self.init(roots: roots, isUnconfined: false)
    }

    /// The roots as the operator wrote them, for logs and messages.
    public var summary: String {
        if isUnconfined { return "any path (--any-local-path)" }
        return roots.isEmpty ? "none configured" : roots.map(\.spelled).joined(separator: ", ")
    }

    /// The root that `path` (absolute, without `..`) lies in or is, by its spelling or its real path; the
    /// longest match.
    func root(lexicallyContaining path: String) -> Root? {
        guard let normalized = SafePath.normalize(path) else { return nil }
        var best: (root: Root, base: String)?
        for root in roots {
            for base in [root.spelled, root.real] where Self.isAtOrBelow(normalized, base) {
                if best == nil || base.count > best!.base.count { best = (root, base) }
            }
        }
        return best?.root
    }

    /// The prefix of `path` that names `root` (its spelling or its real path).
    func base(of path: String, in root: Root) -> String {
        let normalized = SafePath.normalize(path) ?? path
        return [root.spelled, root.real].filter { Self.isAtOrBelow(normalized, $0) }.max(by: { $0.count < $1.count }) ?? root.real
    }

    /// Whether a real path (as the kernel reports it for an open descriptor) lies in a root.
    func contains(realPath: String) -> Bool {
        roots.contains { Self.isAtOrBelow(realPath, $0.real) }
    }

    /// Refuses, before anything is opened, a path that is relative, has `..` or lies outside every root.
    /// `role` names the path in the message ("source", "destination").
    public func check(_ path: String, role: String) throws(JobFailure) {
        guard path.hasPrefix("/"), !path.utf8.contains(0) else {
            throw JobFailure.permanent("unsafe_path", "the \(role) \(path) is not an absolute path")
        }
        guard !SafePath.hasDotDot(path) else {
            throw JobFailure.permanent("unsafe_path", "the \(role) \(path) contains '..'; Ferry refuses it in every local path")
        }
        guard root(lexicallyContaining: path) != nil else { throw outside(path, role: role) }
    }

    func outside(_ path: String, role: String) -> JobFailure {
        JobFailure.permanent(
            "outside_local_roots",
            "the \(role) \(path) is outside this worker's local roots (\(summary)); run workers with --local-root for that folder, or enqueue paths inside the roots")
    }

    static func isAtOrBelow(_ path: String, _ base: String) -> Bool {
        if base == "/" { return path.hasPrefix("/") }
        return path == base || path.hasPrefix(base + "/")
    }

    /// `realpath(3)`: the absolute path with every symlink, `.` and `..` resolved; `nil` when it does not exist.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
