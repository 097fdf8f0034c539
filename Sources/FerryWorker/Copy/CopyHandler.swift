import FerryCore
import FerryProviders
import FerryStore

/// Copies between providers: `ferry enqueue copy SOURCE --to DEST`, found by the destination's scheme and made
/// for every provider that declares a ``CopyWriter``; the source is read by its own provider's
/// ``CopySourceReader``.
///
/// A folder source is listed (resumably, page by page) into one child copy per file in the job's batch. A file
/// is opened at its current version and, unless the destination holds that version already (`if_changed`, the
/// default for copies), streamed to the destination by the writer: a changed file there is replaced as the very
/// version the look saw. The `existing` policy may leave any file there alone or refuse to replace one.
struct CopyHandler: JobHandler {
    let readers: CopyReaders
    let writer: any CopyWriter

    var name: String { "copy-to-\(writer.provider)" }

    func run(_ job: ClaimedJob, context: JobContext) async throws -> JobResult {
        let (from, reader) = try readers.source(of: job)
        if from.folder == true { return try await fanOut(job, from: from, reader: reader, context: context) }
        guard let account = job.account else {
            throw JobFailure.permanent("bad_details", "the copy names no destination account")
        }
        return try await writer.participating(account: account) { try await copy(job, from: from, reader: reader, context: context) }
    }

    /// One file: looked for at the destination when the copy skips the same content (`if_changed`) or its
    /// `existing` policy decides by what is there; a different file found is replaced as the version seen.
    private func copy(
        _ job: ClaimedJob, from: CopySourceDetails, reader: any CopySourceReader, context: JobContext
    ) async throws -> JobResult {
        // A first attempt at a file the folder's listing of the destination did not hold skips the look when only
        // if_changed asks for it: the source's bytes will be needed either way.
        let listedAbsent = job.attempt <= 1 && from.destinationAbsent == true
        let ifChanged = (try? JSONValue.parse(job.spec))?["if_changed"] == .bool(true)
        let policy = ExistingTarget.policy(of: job)
        let looks = policy != .replace || (ifChanged && !listedAbsent)
        let source = try await reader.open(job, from: from, writing: !looks, logger: context.logger)
        guard looks else { return try await writer.write(job, source: source, seen: nil, context: context) }
        let look = try await writer.look(job, source: source, context: context)
        if policy == .ignore, case .same(let present) = look {
            return ExistingTarget.leftAlone(present.merging(source.facts.resultDetails) { ours, _ in ours }, logger: context.logger)
        }
        if policy == .ignore, case .different(_, let present) = look {
            return ExistingTarget.leftAlone(present.merging(source.facts.resultDetails) { ours, _ in ours }, logger: context.logger)
        }
        switch look {
        case .absent:
            return try await writer.write(job, source: source, seen: nil, context: context)
        case .same(let present):
            context.logger.info("the destination holds the source's content already; not copied again")
            return .unchanged(present.merging(source.facts.resultDetails) { ours, _ in ours })
        case .different where policy == .immutable:
            throw ExistingTarget.immutableConflict(job.destination)
        case .different(let version, _):
            return try await writer.write(job, source: source, seen: version, context: context)
        }
    }

    /// Lists a folder copy's source page by page, each page's files becoming child copies in the job's batch.
    private func fanOut(
        _ job: ClaimedJob, from: CopySourceDetails, reader: any CopySourceReader, context: JobContext
    ) async throws -> JobResult {
        guard job.destination.hasSuffix("/") else {
            throw JobFailure.permanent("bad_destination", "a folder copy needs a folder destination (ending in /)")
        }
        var target = CopyTarget(job: job, from: from, accepts: { [writer] in writer.accepts(fileDestination: $0) })
        // Only when unchanged files are left alone does a child look at its destination: then the listing looks
        // for the children, page by page, through the destination's index.
        if target.treeKey != nil, let account = job.account {
            target.destination = try await writer.destinationIndex(folder: job.destination, account: account, logger: context.logger)
        }
        return try await reader.fanOut(job, target: target, context: context)
    }
}
