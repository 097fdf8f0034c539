import FerryCore
import Foundation

/// How a worker process behaves.
public struct WorkerConfiguration: Sendable {
    /// Unique across the fleet; defaults to host-pid-random.
    public var name: String
    public var queues: [String]
    /// Jobs run at once by this process.
    public var concurrency: Int
    /// How long SIGTERM waits for running jobs before releasing them back to the queue.
    public var shutdownTimeout: Duration
    /// Fallback polling when no notification arrives (and the only wake-up with `pollOnly`).
    public var pollInterval: Duration
    /// Never LISTEN (for poolers in transaction mode, where LISTEN does not work).
    public var pollOnly: Bool
    /// One heartbeat write per interval for the whole worker.
    public var heartbeatInterval: Duration
    /// A worker whose heartbeat is older than this is dead: its jobs are rescued. It is also this worker's lease:
    /// commits, renames and deletions stop this long (less a margin) after its last stored heartbeat (see WorkerLease),
    /// so the fleet's workers must agree on it.
    public var rescueAfter: Duration
    /// A job rescued this many times since its last retry fails as poison instead of being handed out again (its
    /// claimers keep dying: it may be what kills them); 0 never does.
    public var poisonAfter = 3
    /// Outcomes are written in batches of up to this many …
    public var completionBatchSize: Int
    /// … or after this long, whichever comes first.
    public var completionFlushInterval: Duration
    /// Minimum spacing of non-forced progress events per job.
    public var progressInterval: Duration
    /// How often queue depth and oldest waiting age are read for metrics.
    public var queueStatsInterval: Duration
    /// Reads queue depth for the metrics every `queueStatsInterval`: on when the worker serves `/metrics`.
    public var readsQueueDepth = true
    public var retryPolicy: RetryPolicy
    /// How long a job waits after this machine ran short of disk space or file descriptors (``ResourceShortage``):
    /// deferred, no attempt used, by the ceiling of this policy after the job's shortages in a row (1 min growing to
    /// 15 min by default).
    public var shortageBackoff = RetryPolicy(baseSeconds: 60, capSeconds: 900, minimumSeconds: 0.01)
    /// Spans for every attempt (`ferry.job.attempt` and its children). Set it only when a tracer is bootstrapped
    /// (`InstrumentationSystem`): it adds one read of the claimed jobs' trace facts per claim.
    public var tracing: Bool
    /// The folders jobs may read from and write to (`--local-root`); `.none` refuses every local path.
    public var localRoots: LocalRoots
    /// Progress events of many jobs in one statement (false: one statement each, for comparison).
    public var batchProgress: Bool
    /// Bytes per second for all of this process's transfers together (`--bwlimit`); nil for no limit.
    public var bandwidthLimit: Int64?

    public init(
        name: String = WorkerConfiguration.defaultName(), queues: [String] = ["default"], concurrency: Int = 8,
        shutdownTimeout: Duration = .seconds(30), pollInterval: Duration = .seconds(2), pollOnly: Bool = false,
        heartbeatInterval: Duration = .seconds(5), rescueAfter: Duration = .seconds(15),
        completionBatchSize: Int = 200, completionFlushInterval: Duration = .milliseconds(2),
        progressInterval: Duration = .milliseconds(500), queueStatsInterval: Duration = .seconds(15),
        retryPolicy: RetryPolicy = RetryPolicy(), tracing: Bool = false,
        localRoots: LocalRoots = .none, batchProgress: Bool = true, bandwidthLimit: Int64? = nil
    ) {
        self.localRoots = localRoots
        self.batchProgress = batchProgress
        self.bandwidthLimit = bandwidthLimit.flatMap { $0 > 0 ? $0 : nil }
        self.tracing = tracing
        self.name = name
        self.queues = queues
        self.concurrency = max(1, concurrency)
        self.shutdownTimeout = shutdownTimeout
        self.pollInterval = pollInterval
        self.pollOnly = pollOnly
        self.heartbeatInterval = heartbeatInterval
        self.rescueAfter = rescueAfter
        self.completionBatchSize = max(1, completionBatchSize)
        self.completionFlushInterval = completionFlushInterval
        self.progressInterval = progressInterval
        self.queueStatsInterval = queueStatsInterval
        self.retryPolicy = retryPolicy
    }

    /// `host-pid-xxxx`: unique even for several workers on one machine.
    public static func defaultName() -> String {
        let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "worker"
        return "\(host)-\(ProcessInfo.processInfo.processIdentifier)-\(String(UInt16.random(in: 0...UInt16.max), radix: 16))"
    }
}
