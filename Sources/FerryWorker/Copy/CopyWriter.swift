import FerryCore
import FerryStore

/// The write side of copies to one provider: what the destination holds already, and the resumable transfer
/// of a source's bytes into it, part by part (each part read from the source as it is sent, so memory holds a
/// part or two whatever the file's size, and nothing is written to local disk).
protocol CopyWriter: Sendable {
    /// `s3`, `dropbox`: for the handler's name in logs and metrics.
    var provider: String { get }
    /// Runs one copy to `account`, inside whatever the destination groups its writes in (Dropbox's batch commits).
    func participating(account: String, _ body: () async throws -> JobResult) async throws -> JobResult
    /// What shows the destination holds the source's version already (result details), or `nil`.
    func present(_ job: ClaimedJob, source: any CopySource, context: JobContext) async throws -> [String: JSONValue]?
    /// Copies `source` to the job's destination, resuming what an earlier attempt recorded.
    func write(_ job: ClaimedJob, source: any CopySource, context: JobContext) async throws -> JobResult
}
