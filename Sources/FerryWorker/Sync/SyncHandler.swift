import FerryCore
import FerryProviders
import FerryStore
import Foundation
import Logging

/// A sync (``SyncMirror``): the copy of a folder, then the deletion of what the destination holds that the source
/// no longer has. Durable and resumable like every job, in three steps the job's session records:
///
/// 1. It enqueues the copy itself as a child in its own batch: the same tree upload or folder copy without the
///    sync (keyed by the sync, so a new attempt enqueues nothing twice).
/// 2. It waits (deferred, no attempt used) while any other job of the batch is unfinished; if any did not succeed
///    it fails and deletes nothing (`sync_incomplete`).
/// 3. It lists the source and the destination whole, with the job's filter (a listing that fails or is cut short
///    fails the job: nothing deleted), plans the deletions (``SyncPlan``), refuses more than `max_delete` of them
///    and a source that lists no file at all without an explicit bound, and deletes page by page. Each page's paths
///    are recorded in a progress event before any of them is deleted: the record is fenced by the job's lease, so
///    a worker that lost its claim deletes nothing, and a resumed attempt plans again from fresh listings (what
///    was deleted is gone, what came back to the source stays).
struct SyncHandler: JobHandler {
    let registry: ProviderRegistry
    let environment: ProviderEnvironment
    /// Deletions recorded per progress event.
    var pageSize = 50

    var name: String { "sync" }

    func run(_ job: ClaimedJob, context: JobContext) async throws -> JobResult {
        let session = job.session.flatMap { try? JSONValue.parse($0) }
        let spec = (try? JSONValue.parse(job.spec))?.objectValue ?? [:]
        guard let batch = job.batch else {
            throw JobFailure.permanent("sync_without_batch", "a sync runs its copies in a batch of its own, and this job has none: enqueue it again")
        }
        if session?["phase"] == nil {
            try await enqueueCopy(job, spec: spec, context: context)
        }
        let siblings = try await context.store.batchSiblings(of: job.jobID, batch: batch)
        if siblings.unfinished > 0 {
            // Many copies take long: look again less often, so a long run costs few events.
            let wait = min(30.0, 1.0 + Double(siblings.unfinished) / 100)
            throw JobFailure(
                .rateLimited(until: Date().addingTimeInterval(wait)), code: "sync_waiting",
                "waiting for the run's \(siblings.unfinished) unfinished copies before deleting anything")
        }
        if siblings.unsuccessful > 0 {
            throw JobFailure.permanent(
                "sync_incomplete",
                "\(siblings.unsuccessful) of this run's copies did not succeed: nothing was deleted. Fix them (ferry status --batch \(batch)), then sync again")
        }
        let maxDelete = spec[SyncMirror.specKey]?["max_delete"]?.intValue
        let plan = try await self.plan(job, context: context)
        // An attempt that ended mid-page deleted some of the page it announced: those are gone from the listing.
        let announced = session?["deleting"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let deletedBefore = (session?["deleted"]?.intValue ?? 0) + Int64(plan.gone(announced))
        try Self.check(plan, maxDelete: maxDelete, deletedBefore: deletedBefore, destination: job.destination)
        let deleted = try await delete(plan.extras, job: job, deletedBefore: deletedBefore, context: context)
        context.logger.info("sync done", metadata: ["deleted": "\(deleted)", "source_files": "\(plan.sourceFiles)"])
        return JobResult(details: .object([
            "source_files": .int(Int64(plan.sourceFiles)), "destination_files": .int(Int64(plan.destinationFiles - plan.extras.count)),
            "deleted": .int(deleted),
        ]))
    }

    /// Step 1: the copy as a child of this job's batch, recorded as the session's first phase.
    func enqueueCopy(_ job: ClaimedJob, spec: [String: JSONValue], context: JobContext) async throws {
        var details = spec
        details[SyncMirror.specKey] = nil
        let copy = FanOutChild(
            kind: job.kind, source: job.source, destination: job.destination, account: job.account,
            idempotencyKey: "sync:\(job.jobID.uuidString.lowercased())", details: details)
        _ = try await context.fanOut([copy], bytesDone: 0, session: .object(["phase": .string("copying")]))
    }

    /// The refusals that keep a sync from deleting what it should not.
    static func check(_ plan: SyncPlan, maxDelete: Int64?, deletedBefore: Int64, destination: String) throws {
        let total = deletedBefore + Int64(plan.extras.count)
        if let maxDelete, total > maxDelete {
            throw JobFailure.permanent(
                "max_delete",
                "this sync would delete \(total) files of \(destination), more than --max-delete \(maxDelete): "
                    + (deletedBefore == 0 ? "nothing was deleted" : "\(deletedBefore) were deleted before the bound was met")
                    + ". Check the source; if the deletions are meant, sync again with --max-delete \(total)")
        }
        if maxDelete == nil, plan.sourceFiles == 0, !plan.extras.isEmpty {
            throw JobFailure.permanent(
                "source_empty",
                "the source lists no file, so this sync would delete all \(plan.extras.count) files of \(destination): nothing was deleted. "
                    + "If that is meant, sync again with --max-delete \(plan.extras.count)")
        }
    }
}
