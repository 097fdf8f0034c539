import FerryCore
import FerryProviders
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// Local folders' removal capability: unlinks a file a listing named, inside the environment's local roots, through
/// its folder opened as a worker opens any destination (``LocalRoots/openDirectory(_:create:role:)``: no symlink
/// leads out), and never a folder or anything but a regular file or a link. Off the cooperative pool.
struct LocalDirectoryRemover: RemoteRemover {
    let roots: LocalRoots

    func remove(_ entry: RemoteEntry, logger: Logger) async throws {
        let path = try LocalDirectoryLister.path(of: entry.reference)
        let slash = path.lastIndex(of: "/") ?? path.startIndex
        let (folderPath, name) = (String(path[..<slash]), String(path[path.index(after: slash)...]))
        guard SafePath.component(name) != nil else {
            throw JobFailure.permanent("not_listed", "\(path) names no file a listing found")
        }
        try await BlockingIO.run { [roots] in
            let folder: OwnedFile
            do {
                folder = try roots.openDirectory(folderPath.isEmpty ? "/" : folderPath, create: false, role: "destination")
            } catch let failure as POSIXFailure where failure.code == ENOENT {
                return  // The folder is gone, and the file with it.
            } catch let failure as POSIXFailure {
                throw LocalRoots.classify(failure, role: "destination")
            }
            var info = stat()
            guard fstatat(folder.descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
                if errno == ENOENT { return }
                throw JobFailure.retryable("delete_failed", "cannot look at \(path): \(String(cString: strerror(errno)))")
            }
            let type = info.st_mode & S_IFMT
            guard type == S_IFREG || type == S_IFLNK else {
                throw JobFailure.permanent("not_a_file", "\(path) is no longer a file: a sync deletes only files it listed")
            }
            guard unlinkat(folder.descriptor, name, 0) == 0 || errno == ENOENT else {
                throw JobFailure.retryable("delete_failed", "cannot delete \(path): \(String(cString: strerror(errno)))")
            }
        }
    }
}
