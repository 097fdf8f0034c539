import FerryStore
import Foundation

/// How the outcome batcher claims for the worker in the transaction of outcomes that freed account slots: `begin`
/// answers the claim to make (having taken the worker's ``ClaimGate`` turn), or nil when the worker may not claim
/// now; `end` starts what was claimed (under the lease generation `begin` saw) and gives the turn back.
struct ClaimHandover: Sendable {
    struct Request: Sendable {
        let worker: String
        let queues: [String]
        let limit: Int
        let generation: Int
    }

    /// `finished`: the jobs whose outcomes go with the claim (their handlers returned, so their slots are free).
    let begin: @Sendable (_ finished: Set<UUID>) -> Request?
    let end: @Sendable (_ claimed: [ClaimedJob], _ generation: Int) -> Void
}
