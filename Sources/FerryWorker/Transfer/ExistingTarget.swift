import FerryCore
import FerryProviders
import FerryStore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A fetch's policy for a file already at its target (`existing`: replace, ignore, immutable), read from the
/// job's spec (a folder's children carry their parent's).
enum ExistingTarget {
    static func policy(of job: ClaimedJob) -> ExistingFilePolicy {
        guard let spec = try? JSONValue.parse(job.spec), let text = spec[ExistingFilePolicy.specKey]?.stringValue else {
            return .replace
        }
        return ExistingFilePolicy(rawValue: text) ?? .replace
    }

    /// With `ignore`, a job whose target exists (as anything but a folder; links are not followed) succeeds at
    /// once without downloading: its result says `"skipped": "exists"`. Otherwise `nil`: go ahead.
    static func skipIfPresent(_ target: String, job: ClaimedJob, context: JobContext) async throws -> JobResult? {
        guard policy(of: job) == .ignore else { return nil }
        let present = try await BlockingIO.run { () -> Bool in
            var info = stat()
            return lstat(target, &info) == 0 && (info.st_mode & S_IFMT) != S_IFDIR
        }
        guard present else { return nil }
        context.logger.info("a file is at the target already; left as it is (existing=ignore)")
        return JobResult(bytes: 0, details: .object(["skipped": .string("exists"), "path": .string(target)]))
    }
}
