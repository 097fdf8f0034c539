import Foundation

extension WorkerStore {
    /// Records then claims in two calls: a store without transactions of its own (the in-memory one) keeps the
    /// same rules, as each call does.
    public func recordThenClaim(_ outcomes: [JobOutcome], worker: String, queues: [String], limit: Int) async throws -> RecordedAndClaimed {
        let (accepted, rejected) = try await record(outcomes)
        let claimed = try await claim(worker: worker, queues: queues, limit: limit)
        return RecordedAndClaimed(accepted: accepted, rejected: rejected, claimed: claimed)
    }
}
