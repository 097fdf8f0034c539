import FerryCore
import FerryStore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The source as the producer saw it at enqueue.
struct SourceExpectation {
    let size: Int64
    let modifiedNanoseconds: Int64
    let inode: Int64?

    init(spec: String) throws {
        guard let value = try? JSONValue.parse(spec), let size = value["size"]?.intValue,
            let mtime = value["mtime_ns"]?.intValue
        else {
            throw JobFailure.permanent("bad_spec", "the job has no recorded source size and modification time")
        }
        self.size = size
        self.modifiedNanoseconds = mtime
        self.inode = value["inode"]?.intValue
    }

    /// Opens an upload job's source for reading, confined to the worker's local roots, and checks it is still the
    /// file that was enqueued. A missing or unreadable source, one outside the roots, or one that changed, fails
    /// the job for good.
    static func open(_ job: ClaimedJob, roots: LocalRoots) throws -> (SourceExpectation, OwnedFile) {
        let expected = try SourceExpectation(spec: job.spec)
        let source = try roots.openSource(job.source)
        try expected.check(try source.status(), path: job.source, when: "since it was enqueued")
        return (expected, source)
    }

    func check(_ info: stat, path: String, when: String) throws {
        let mtime = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        var changes = [String]()
        if Int64(info.st_size) != size { changes.append("size \(size) → \(info.st_size)") }
        if mtime != modifiedNanoseconds { changes.append("modification time") }
        if let inode, inode != Int64(bitPattern: UInt64(info.st_ino)) { changes.append("replaced by another file") }
        if !changes.isEmpty {
            throw JobFailure.permanent(
                "source_changed",
                "\(path) changed \(when) (\(changes.joined(separator: ", "))); enqueue it again to upload the new version")
        }
    }
}
