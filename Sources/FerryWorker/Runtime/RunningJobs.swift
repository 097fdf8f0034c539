import FerryStore
import Foundation
import Synchronization

/// The jobs this worker holds right now, with the task running each and why it was told to stop.
final class RunningJobs: Sendable {
    enum StopReason: Sendable {
        /// Someone ran `ferry cancel`: record `cancelled`.
        case cancelRequested
        /// The worker is shutting down: hand the job back (`released`).
        case shutdown
    }

    private struct Entry {
        var job: ClaimedJob
        var task: Task<Void, Never>?
        var stopReason: StopReason?
    }

    private let entries = Mutex([UUID: Entry]())

    var count: Int { entries.withLock { $0.count } }

    /// Jobs held, less those in `finished` (their handlers returned; they leave in a moment).
    func count(excluding finished: Set<UUID>) -> Int {
        entries.withLock { entries in entries.count - finished.reduce(0) { $0 + (entries[$1] == nil ? 0 : 1) } }
    }

    var jobs: [ClaimedJob] { entries.withLock { $0.values.map(\.job) } }

    func add(_ job: ClaimedJob) {
        entries.withLock { $0[job.jobID] = Entry(job: job) }
    }

    func attach(_ task: Task<Void, Never>, to jobID: UUID) {
        let cancelNow = entries.withLock { entries -> Bool in
            entries[jobID]?.task = task
            return entries[jobID]?.stopReason != nil
        }
        if cancelNow { task.cancel() }
    }

    func remove(_ jobID: UUID) {
        _ = entries.withLock { $0.removeValue(forKey: jobID) }
    }

    func stopReason(of jobID: UUID) -> StopReason? {
        entries.withLock { $0[jobID]?.stopReason }
    }

    /// Cancels the jobs' tasks, remembering why. Returns how many were running here.
    @discardableResult
    func stop(_ jobIDs: Set<UUID>?, reason: StopReason) -> Int {
        let tasks = entries.withLock { entries -> [Task<Void, Never>] in
            var tasks = [Task<Void, Never>]()
            for id in jobIDs ?? Set(entries.keys) where entries[id] != nil {
                if entries[id]!.stopReason == nil { entries[id]!.stopReason = reason }
                if let task = entries[id]!.task { tasks.append(task) }
            }
            return tasks
        }
        for task in tasks { task.cancel() }
        return tasks.count
    }
}
