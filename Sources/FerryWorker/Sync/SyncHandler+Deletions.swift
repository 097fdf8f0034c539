import FerryCore
import FerryProviders
import FerryStore
import Foundation
import Logging

extension SyncHandler {
    /// Step 3's listings: both sides whole, with the job's filter; any failure fails the job before a deletion.
    func plan(_ job: ClaimedJob, context: JobContext) async throws -> SyncPlan {
        let filter = ListingFilterReader.filter(of: job) ?? FileFilter()
        var options = RemoteListOptions(recursive: true, filter: filter)
        options.strict = true
        let source = try await listed(job.source, side: "source", options: options, logger: context.logger)
        let destination = try await listed(job.destination, side: "destination", options: options, logger: context.logger)
        let ignoreCase = registry.provider(for: job.destination)?.pathsIgnoreCase ?? false
        return SyncPlan(source: source, destination: destination, ignoreCase: ignoreCase)
    }

    /// Every entry of `remote`, or a permanent failure naming the side: a sync never deletes after a partial listing.
    func listed(_ remote: String, side: String, options: RemoteListOptions, logger: Logger) async throws -> [RemoteEntry] {
        var entries = [RemoteEntry]()
        do {
            let listing = try RemoteListing.open(remote, registry: registry, environment: environment)
            _ = try await listing.run(options: options, logger: logger) { entries += $0 }
        } catch let failure as JobFailure {
            // Transient trouble retries the whole step; nothing was deleted.
            throw JobFailure(failure.kind, code: failure.code, "listing the \(side) \(remote): \(failure.message); nothing was deleted")
        } catch let error as RemoteListingError where error.code == .notFound && side == "destination" {
            return []  // Nothing there yet: nothing to delete.
        } catch let error as RemoteListingError {
            throw JobFailure.permanent("sync_listing_failed", "listing the \(side) \(remote): \(error.description); nothing was deleted")
        } catch let issue as ValidationIssue {
            throw JobFailure.permanent("sync_listing_failed", "listing the \(side) \(remote): \(issue.problem); nothing was deleted")
        }
        return entries
    }

    /// Deletes `extras` a page at a time, each page announced in a fenced progress event first; returns the total
    /// deleted by this sync so far.
    func delete(_ extras: [RemoteEntry], job: ClaimedJob, deletedBefore: Int64, context: JobContext) async throws -> Int64 {
        guard !extras.isEmpty else { return deletedBefore }
        guard environment.allowsDeletes else {
            throw JobFailure.permanent(
                "deletes_disabled",
                "this sync would delete \(extras.count) files of \(job.destination), and this worker runs with --no-deletes: nothing was deleted. Run it on a worker that allows deletions, or copy instead of syncing")
        }
        guard let provider = registry.provider(for: job.destination) as? any ProviderHandlers,
            let remover = provider.remover(environment: environment)
        else {
            throw JobFailure.permanent("sync_cannot_delete", "\(job.destination): this provider takes no deletions here; nothing was deleted")
        }
        var deleted = deletedBefore
        var start = 0
        while start < extras.count {
            let page = extras[start..<min(extras.count, start + pageSize)]
            // Written before the deletions and refused once the lease lapsed (LeaseLost): no effect after that.
            try await context.reportProgress(
                bytesDone: 0,
                session: .object([
                    "phase": .string("deleting"), "deleted": .int(deleted),
                    "deleting": .array(page.map { .string($0.path) }),
                ]),
                force: true)
            for entry in page {
                try Task.checkCancellation()
                // The progress event above was accepted, but the lease may lapse during a long page.
                try context.ensureLease(before: "deleting a file")
                try await remover.remove(entry, logger: context.logger)
                deleted += 1
            }
            start += page.count
        }
        try await context.reportProgress(
            bytesDone: 0, session: .object(["phase": .string("deleted"), "deleted": .int(deleted)]), force: true)
        return deleted
    }
}
