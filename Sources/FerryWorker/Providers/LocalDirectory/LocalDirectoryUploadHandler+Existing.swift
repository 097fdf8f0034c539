import FerryCore
import FerryProviders
import FerryStore

#if canImport(Glibc)
    import Glibc
#endif

/// The look at the target before a copy (`if_changed`, `existing`).
extension LocalDirectoryUploadHandler {
    /// The job's result when nothing is to be copied (the same bytes are there, or `existing=ignore` finds a file),
    /// `nil` to copy; `existing=immutable` and a different file there fail the job.
    static func look(
        at name: String, in folder: OwnedFile, target: String, source: OwnedFile, size: Int64, policy: ExistingFilePolicy,
        context: JobContext
    ) async throws -> JobResult? {
        // nil: nothing there; otherwise whether it holds the same bytes (a link or a special file does not).
        let same = try await BlockingIO.run { () throws -> Bool? in
            guard let existing = try? folder.openChild(name, flags: O_RDONLY | O_NOFOLLOW | O_NONBLOCK, mode: 0) else {
                return folder.hasChild(name) ? false : nil
            }
            let info = try existing.status()
            guard (info.st_mode & S_IFMT) == S_IFREG, Int64(info.st_size) == size else { return false }
            return try LocalContentHash.sameContent(source, existing, size: size)
        }
        if same != nil, policy == .ignore {
            return ExistingTarget.leftAlone(["path": .string(target)], logger: context.logger)
        }
        if same == true {
            context.logger.info("the destination holds the same content already; not copied again")
            return .unchanged(["size": .int(size), "path": .string(target)])
        }
        if same == false, policy == .immutable { throw ExistingTarget.immutableConflict(target) }
        return nil
    }
}
