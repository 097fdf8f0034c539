import FerryCore
import Foundation
import Logging

/// What a worker needs of the queue: claim, record outcomes and progress, fan out, prove liveness, rescue, poll
/// for cancel requests, and hear wake-ups. `FerryStore` implements it on PostgreSQL; `FerryTesting`'s
/// `MemoryWorkerStore` implements it in process, and one contract test suite runs against both so they cannot
/// drift apart.
///
/// Everything here is the worker's side of a job's life. Producers (enqueue, cancel, status), accounts'
/// credentials and token refreshes (`AccountTokenProvider`), schedules (`Scheduler`) and the schema check
/// (`SchemaGate`, `WorkerReadiness`) stay on `FerryStore` for now: they are not part of the claim loop.
///
/// Every method may be called concurrently. Events carry the claim's lease (fencing token): a method that
/// appends for a job does so only while that lease is the job's current claim.
public protocol WorkerStore: Sendable {
    // MARK: Claims and outcomes

    /// Claims up to `limit` due jobs from `queues`: highest priority first, then oldest `run_at`, then job id;
    /// only jobs whose `run_at` has passed, of unpaused queues; at most `max_concurrent` transfers per account
    /// (a job whose bytes are all up no longer counts). Each claim starts an attempt under a new lease. Jobs come
    /// back in claim order.
    func claim(worker: String, queues: [String], limit: Int) async throws -> [ClaimedJob]

    /// Appends outcomes (finishes, retries, deferrals, releases, cancellations, resolutions), each only if its
    /// lease is still the job's current claim; the others come back as rejected. With several outcomes for one
    /// job, only the last counts.
    func record(_ outcomes: [JobOutcome]) async throws -> (accepted: Set<UUID>, rejected: Set<UUID>)

    /// Appends outcomes as `record` does and then, in the same transaction, claims up to `limit` due jobs as `claim`
    /// does: an account slot the outcomes freed goes to the next job with one commit and no wake-up in between
    /// (a capped account's transfers otherwise wait a write, a wake-up and a claim for each freed slot).
    func recordThenClaim(_ outcomes: [JobOutcome], worker: String, queues: [String], limit: Int) async throws -> RecordedAndClaimed

    /// Records a progress event if its claim is current, and says whether a cancel was requested.
    func recordProgress(_ outcome: JobOutcome) async throws -> ProgressAck

    /// Progress events of many jobs at once; the answer has an entry for every job (not accepted when its claim
    /// is gone).
    func recordProgress(_ outcomes: [JobOutcome]) async throws -> [UUID: ProgressAck]

    /// Enqueues the children a running job found into its batch and records its progress, atomically, if the
    /// parent's claim is current. Children are keyed (`FanOutChild.idempotencyKey`): a repeat creates none.
    func fanOut(_ children: [FanOutChild], from parent: ClaimedJob, progress: JobOutcome, now: Date) async throws -> FanOutAck

    /// Tells every worker that account capacity freed, so one whose claim came back short claims again.
    func announceCapacity() async throws

    // MARK: Liveness and recovery

    /// Registers (or re-registers) a worker; its heartbeat starts now.
    func register(_ worker: WorkerRegistration) async throws

    /// One heartbeat. Returns false when the worker's registration is gone (it was declared dead).
    func heartbeat(worker: String, stopping: Bool) async throws -> Bool

    /// Removes a worker's registration at a clean exit.
    func deregister(worker: String) async throws

    /// Puts back (or fails, with attempts exhausted) the running jobs of workers whose heartbeat is older than
    /// `staleAfter`, or who are not registered at all; exactly once across all workers. A job rescued for the
    /// `poisonAfter`-th time since its last retry (its claimers keep dying: it may be what kills them) fails instead,
    /// outcome `poison`, error starting `poison:`; 0 never does.
    func rescueStaleJobs(staleAfter: Duration, poisonAfter: Int) async throws -> [RescuedJob]

    /// Releases claims held by `worker` that it is not running (their reply was lost) and that are older than
    /// `grace`. Returns the released jobs.
    func releaseOrphanedClaims(worker: String, running: [UUID], grace: Duration) async throws -> [UUID]

    /// Running jobs of `worker` that someone asked to cancel.
    func cancelRequests(worker: String) async throws -> Set<UUID>

    // MARK: Remote folders

    /// Claims the creation of the folder `path` in the account space `scope` (a provider's own words), so that a
    /// fleet creates it once on services where paths are not unique. A claim held by a worker that died goes stale
    /// after `staleAfter` and is taken over (the new holder looks for the folder before creating it).
    func claimRemoteFolder(scope: String, path: String, owner: String, staleAfter: Duration) async throws -> RemoteFolderClaim

    /// Records the id of a claimed folder; the first id recorded stands and is returned (`nil`: no claim exists).
    func recordRemoteFolder(scope: String, path: String, id: String) async throws -> String?

    /// Forgets a recorded folder id the service no longer knows, so the next claim creates the folder again.
    func forgetRemoteFolder(scope: String, path: String, id: String) async throws

    // MARK: Batches

    /// The other jobs of `batch` than `job`: how many are unfinished and how many did not succeed.
    func batchSiblings(of job: UUID, batch: String) async throws -> BatchSiblings

    // MARK: Wake-ups

    /// Announcements of new work and cancel requests, until the stream's consumer stops iterating. PostgreSQL
    /// delivers them through LISTEN on a connection of its own; polling stays the fallback, so a lost
    /// announcement only delays work.
    /// `logger` is for the listener's own notices (reconnects).
    func wakeups(logger: Logger) -> AsyncStream<WorkerWakeup>

    // MARK: Views and accounts

    /// Replaces this worker's live-progress entries (bytes moved beyond durable progress) with `jobs`.
    func publishLiveProgress(worker: String, jobs: [(jobID: UUID, batch: String?, bytes: Int64)]) async throws

    /// Folds pending counter deltas; returns how many were folded.
    @discardableResult
    func compactCounters() async throws -> Int

    /// Queue depth for metrics: every queue with unfinished jobs, and each of `queues`.
    func queueDepth(including queues: [String]) async throws -> [QueueDepthRow]

    /// The queues paused now, for the `ferry_queue_paused` gauge.
    func pausedQueues() async throws -> Set<String>

    /// Each account's transfers against its cap and whether it needs a login, for the account gauges (at most
    /// `FerryStore.accountLoadLimit` accounts, by name).
    func accountLoad() async throws -> [AccountLoadRow]

    /// What is known of freshly claimed jobs' traces (called only with tracing on).
    func traceFacts(for jobs: [ClaimedJob]) async throws -> [UUID: JobTraceFacts]

    /// The account a job enqueued from SQL uses: `name`, which must exist and belong to `provider`, or else the
    /// only usable account of `provider`. Throws `FerryStoreError` (`unknownAccount`).
    func settleAccount(named name: String?, provider: String) async throws -> String

    /// Renews `worker`'s lease on a share of `account`'s limits for `lease`, weighted by `demand` (the jobs it runs
    /// on the account, at least 1), and answers the limits and its fraction of them among every live lease. An
    /// account without limits leases nothing (fraction 1).
    func leaseAccountShare(_ account: String, worker: String, demand: Double, lease: Duration) async throws -> AccountShareLease
}
