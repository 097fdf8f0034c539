import FerryCore
import FerryStore
import Logging

/// The policy's outcomes for uploads and copies, the same for every provider.
extension ExistingTarget {
    /// Whether an upload or a copy must look at its destination before writing: to skip the same content
    /// (`ifChanged`), or because the policy decides by what is there.
    static func looks(_ job: ClaimedJob, ifChanged: Bool) -> Bool {
        ifChanged || policy(of: job) != .replace
    }

    /// `existing=ignore` and a file at the destination: the job succeeds without writing, its result saying
    /// `"skipped": "exists"` (as a fetch's does).
    static func leftAlone(_ facts: [String: JSONValue], logger: Logger) -> JobResult {
        logger.info("a file is at the destination already; left as it is (existing=ignore)")
        var details = facts
        details["skipped"] = .string("exists")
        return JobResult(bytes: 0, details: .object(details))
    }

    /// `existing=immutable` and a different file at the destination: never replaced.
    static func immutableConflict(_ destination: String) -> JobFailure {
        .permanent(
            "destination_exists",
            "\(destination) already exists with different content and the job is immutable (existing=immutable), so it is not replaced; move that file away, or retry with --option existing=replace to replace it")
    }
}
