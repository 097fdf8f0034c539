import FerryCore
import FerryProviders
import FerryStore
import Foundation

extension JobContext {
    /// Enqueues children the job discovered and records the job's resumable cursor with them (one transaction).
    ///
    /// Returns how many children were new. Throws `LeaseLost` when the claim is gone (nothing was enqueued) and
    /// `CancellationError` when a cancel was requested.
    @discardableResult
    public func fanOut(_ children: [FanOutChild], bytesDone: Int64, bytesTotal: Int64? = nil, session: JSONValue) async throws -> Int {
        try Task.checkCancellation()
        // The parent's policy for files already there goes to every child it lists.
        var inheriting = children
        let existing = ExistingTarget.policy(of: job)
        if existing != .replace {
            for index in inheriting.indices where inheriting[index].details[ExistingFilePolicy.specKey] == nil {
                inheriting[index].details[ExistingFilePolicy.specKey] = .string(existing.rawValue)
            }
        }
        let children = inheriting
        let outcome = progressOutcome(bytesDone: bytesDone, bytesTotal: bytesTotal, session: session)
        let ack = try await withDatabaseRetry(logger: logger) {
            try await self.store.fanOut(children, from: self.job, progress: outcome, now: Date())
        }
        guard ack.accepted else { throw LeaseLost() }
        if ack.cancelRequested {
            markCancelRequested()
            throw CancellationError()
        }
        return ack.created
    }
}
