import FerryCore
import FerryProviders
import Logging
import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

/// Local folders' listing capability (`file:///dir/` or `/dir/`), confined to the environment's local roots as a
/// worker's jobs are (``LocalRoots/openDirectory(_:create:role:)``, ``LocalRoots/openSource(_:)``). The walk
/// (``LocalFolderWalk``) and every read run through `BlockingIO`, off the cooperative pool. Local files state no
/// digest, but reading them is cheap: a comparison hashes them to match the other side.
struct LocalDirectoryLister: RemoteLister {
    let roots: LocalRoots
    /// Entries per page.
    var pageSize = 1000

    var readsLocally: Bool { true }

    /// The absolute path `remote` names.
    static func path(of remote: String) throws -> String {
        if remote.hasPrefix("file:") { return try FileURL.path(of: remote, field: "remote", line: nil) }
        try EndpointSyntax.validateLocalPath(remote, field: "remote")
        return remote
    }

    func list(_ remote: String, options: RemoteListOptions, logger: Logger, page: ([RemoteEntry]) async throws -> Void) async throws {
        let path = try Self.path(of: remote)
        let walk = try await BlockingIO.run { [roots] in
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
                throw RemoteListingError(.notFound, "\(path) is not a folder", fix: "check the path (a local folder, or scheme:ACCOUNT:/folder/ for an account's)")
            }
            do {
                let folder = try roots.openDirectory(path, create: false, role: "folder")
                return try LocalFolderWalk(folder: folder, base: SafePath.normalize(path) ?? path, options: options)
            } catch let failure as POSIXFailure {
                if failure.code == ENOENT || failure.code == ENOTDIR {
                    throw RemoteListingError(.notFound, "\(path) is not a folder", fix: "check the path")
                }
                throw LocalRoots.classify(failure, role: "folder")
            }
        }
        while true {
            let entries = try await BlockingIO.run { [pageSize] in
                do {
                    return try walk.next(pageSize)
                } catch let failure as POSIXFailure {
                    throw LocalRoots.classify(failure, role: "folder")
                }
            }
            guard !entries.isEmpty else { break }
            try await page(entries)
        }
        if walk.skipped > 0 {
            logger.notice("symbolic links, special files and unreadable entries skipped", metadata: ["skipped": "\(walk.skipped)"])
        }
    }

    func read(_ entry: RemoteEntry, logger: Logger, into body: (ByteBuffer) async throws -> Void) async throws {
        let path = try Self.path(of: entry.reference)
        let file = try await BlockingIO.run { [roots] in
            do {
                return try Self.open(path, roots: roots)
            } catch let failure as POSIXFailure {
                throw LocalRoots.classify(failure, role: "source")
            }
        }
        let step = 1 << 20
        var offset: Int64 = 0
        while true {
            let bytes = try await BlockingIO.run { [offset] in
                do {
                    return try file.read(at: offset, count: step)
                } catch let failure as POSIXFailure {
                    throw LocalRoots.classify(failure, role: "source")
                }
            }
            guard !bytes.isEmpty else { return }
            try await body(ByteBuffer(bytes: bytes))
            offset += Int64(bytes.count)
        }
    }

    /// A listed file, opened read-only through its folder (confined to the roots) and by its name without following
    /// a link. Unlike a job's source, the name may hold any character but `/` and NUL: it came from the listing.
    static func open(_ path: String, roots: LocalRoots) throws -> OwnedFile {
        let (folderPath, name) = LocalRoots.split(path)
        guard !name.isEmpty, name != ".", name != "..", !name.utf8.contains(0) else {
            throw JobFailure.permanent("unsafe_path", "the source \(path) does not name a file")
        }
        let folder = try roots.openDirectory(folderPath, create: false, role: "source")
        let fd = openat(folder.descriptor, name, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw POSIXFailure(operation: "open", path: path, code: errno) }
        let file = OwnedFile(descriptor: fd, path: path)
        guard (try file.status().st_mode & S_IFMT) == S_IFREG else {
            throw JobFailure.permanent("source_not_file", "the source \(path) is not a regular file")
        }
        return file
    }
}
