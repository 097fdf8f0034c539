import FerryCore
import Postgres

/// A schedule's runs in `ferry.batch_status` (each run is a batch named `schedule:NAME:TICK`), summed: what the
/// overview and the Batches page show as one row per schedule instead of a row per run.
public struct ScheduleRunGroup: Sendable, Hashable {
    public var schedule: String
    public var runs: Int64
    /// Runs with jobs still queued or running.
    public var going: Int64
    /// Finished runs whose every job succeeded.
    public var succeededRuns: Int64
    /// Finished runs with a job that failed, was cancelled or discarded.
    public var unsuccessfulRuns: Int64
    public var jobs: Int64
    public var bytesDone: Int64
    /// The newest run's batch and when it was enqueued.
    public var lastBatch: String
    public var lastRunAt: PostgresTimestamp

    public var json: JSONValue {
        .object([
            "schedule": .string(schedule), "runs": .int(runs), "going": .int(going), "succeeded_runs": .int(succeededRuns),
            "unsuccessful_runs": .int(unsuccessfulRuns), "jobs": .int(jobs), "bytes_done": .int(bytesDone),
            "last_batch": .string(lastBatch), "last_run_at": .string(lastRunAt.iso8601),
        ])
    }
}
