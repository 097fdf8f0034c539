import FerryProviders
import FerryStore
import Logging

/// The read side of copies from one provider (its copy capability, ``ProviderHandlers/copyReader(environment:)``):
/// opens a copy's source file and lists a folder copy's source into child copies. It never knows which provider
/// the destination is: children are made by the ``CopyTarget`` it is handed.
public protocol CopySourceReader: Sendable {
    /// The account a source endpoint of this provider names (checked against the job's `from` details, which a raw
    /// event could otherwise pair with another account). Throws a permanent ``JobFailure`` when it does not parse.
    func account(of source: String) throws -> String
    /// The source at its current version. `writing`: the bytes will be needed (the destination lacks the file or
    /// the copy replaces it), so a provider may read a small file whole at once.
    func open(_ job: ClaimedJob, from: CopySourceDetails, writing: Bool, logger: Logger) async throws -> any CopySource
    /// Lists the folder `job.source` page by page; each listed file becomes `target.child(…)`, each page goes
    /// through `target.hinted(…)` and then `context.fanOut(…)`, resumably (the page cursor as the job's session).
    func fanOut(_ job: ClaimedJob, target: CopyTarget, context: JobContext) async throws -> JobResult
}
