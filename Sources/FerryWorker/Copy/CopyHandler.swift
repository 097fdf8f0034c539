import FerryCore
import FerryStore

/// Copies between providers: `ferry enqueue copy SOURCE --to DEST`, found by the destination's scheme.
///
/// A folder source is listed (resumably, page by page) into one child copy per file in the job's batch. A file
/// is opened at its current version and, unless the destination holds that version already (`if_changed`, the
/// default for copies), streamed to the destination by the provider's ``CopyWriter``.
struct CopyHandler: JobHandler {
    let sources: CopySources
    let writer: any CopyWriter

    var name: String { "copy-to-\(writer.provider)" }

    func run(_ job: ClaimedJob, context: JobContext) async throws -> JobResult {
        let from = try CopySources.details(of: job)
        if from.folder == true { return try await sources.fanOut(job, from: from, context: context) }
        guard let account = job.account else {
            throw JobFailure.permanent("bad_details", "the copy names no destination account")
        }
        return try await writer.participating(account: account) {
            // A first attempt at a file the folder's listing of the destination did not hold skips the look, as
            // does a copy that replaces whatever is there: either way the source's bytes will be needed.
            let listedAbsent = job.attempt <= 1 && from.destinationAbsent == true
            let ifChanged = (try? JSONValue.parse(job.spec))?["if_changed"] == .bool(true)
            let source = try await sources.open(job, from: from, writing: listedAbsent || !ifChanged, logger: context.logger)
            if !listedAbsent, ifChanged, let present = try await writer.present(job, source: source, context: context)
            {
                context.logger.info("the destination holds the source's content already; not copied again")
                return .unchanged(present.merging(source.facts.resultDetails) { ours, _ in ours })
            }
            return try await writer.write(job, source: source, context: context)
        }
    }
}
