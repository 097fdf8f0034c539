import FerryCore
import FerryStore
import Logging

/// The write side of copies to one provider (its copy capability, ``ProviderHandlers/copyWriter(environment:)``):
/// what the destination holds already, and the resumable transfer of a source's bytes into it, part by part (each
/// part read from the source as it is sent, so memory holds a part or two whatever the file's size, and nothing
/// is written to local disk). It never knows which provider the source is: it sees a ``CopySource``.
public protocol CopyWriter: Sendable {
    /// The provider's name, for the handler's name in logs and metrics.
    var provider: String { get }
    /// Whether `destination` (a folder copy's child: the folder joined with a listed file's path) names a file
    /// this provider can write; a child it cannot hold is skipped by the listing.
    func accepts(fileDestination destination: String) -> Bool
    /// Runs one copy to `account`, inside whatever the destination groups its writes in (batched commits).
    func participating(account: String, _ body: () async throws -> JobResult) async throws -> JobResult
    /// What the destination holds: nothing, the source's version, or another file.
    func look(_ job: ClaimedJob, source: any CopySource, context: JobContext) async throws -> CopyDestinationLook
    /// Copies `source` to the job's destination, resuming what an earlier attempt recorded. `seen` is the version of
    /// a different file the look found there: the write replaces exactly that version (a newer one is a conflict).
    func write(_ job: ClaimedJob, source: any CopySource, seen: String?, context: JobContext) async throws -> JobResult
    /// An index of a folder copy's destination `folder`, so each page of children learns which files are absent
    /// there; `nil` when the provider keeps none (each child then looks for itself).
    func destinationIndex(folder: String, account: String, logger: Logger) async throws -> (any CopyDestinationIndex)?
}

extension CopyWriter {
    public func participating(account: String, _ body: () async throws -> JobResult) async throws -> JobResult {
        try await body()
    }

    public func destinationIndex(folder: String, account: String, logger: Logger) async throws -> (any CopyDestinationIndex)? {
        nil
    }
}
