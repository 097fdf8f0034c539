import FerryCore
import Foundation
import Synchronization

/// How long a job deferred for a resource shortage (``ResourceShortage``) waits: `policy`'s ceiling after the
/// job's count of shortages in a row in this process (1 min, 2, 4, 8, then 15 with the defaults), less up to a
/// fifth at random so jobs that ran short together do not come back together. A full disk rarely frees itself
/// within a minute, and each try that finds it full costs a transfer up to the point it filled.
final class ShortageBackoff: Sendable {
    let policy: RetryPolicy
    /// Shortages in a row per job; forgotten when the job ends otherwise. Bounded: past `limit` entries it starts over.
    private let streaks = Mutex<[UUID: Int]>([:])
    private let limit = 10_000

    init(policy: RetryPolicy) {
        self.policy = policy
    }

    /// The delay before `jobID` runs again, counting this shortage.
    func next(_ jobID: UUID) -> Double {
        let streak = streaks.withLock { streaks -> Int in
            if streaks.count >= limit && streaks[jobID] == nil { streaks.removeAll() }
            let streak = (streaks[jobID] ?? 0) + 1
            streaks[jobID] = streak
            return streak
        }
        let ceiling = policy.ceiling(afterAttempt: streak)
        return max(policy.minimumSeconds, ceiling * Double.random(in: 0.8...1.0))
    }

    /// The job ended otherwise (succeeded, failed, retried): its next shortage starts from the first delay again.
    func forget(_ jobID: UUID) {
        _ = streaks.withLock { $0.removeValue(forKey: jobID) }
    }
}
