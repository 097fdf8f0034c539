import FerryCore
import FerryStore
import Foundation

/// One store under contract test, with the producer's and operator's moves the contract needs to set the stage
/// (which are not part of `WorkerStore`).
protocol StoreFixture: Sendable {
    var store: any WorkerStore { get }
    func enqueue(_ specs: [JobSpec]) async throws
    /// `ferry cancel` of one job.
    func cancel(_ jobID: UUID) async throws
    func snapshot(_ jobID: UUID) async throws -> JobSnapshot
    /// Jobs of `batch`, in id order.
    func batch(_ batch: String) async throws -> [UUID]
    func addAccount(_ name: String, maxConcurrent: Int) async throws
    /// `ferry account update NAME --tps-limit --bwlimit` on an account `addAccount` made.
    func setAccountLimits(_ name: String, requestsPerSecond: Double?, bytesPerSecond: Int64?) async throws
    /// Makes `worker`'s budget leases lapse, as if it had stopped renewing them.
    func expireAccountShares(of worker: String) async throws
    func pauseQueue(_ queue: String) async throws
    /// Makes `worker`'s last heartbeat an hour old.
    func stopHeartbeats(of worker: String) async throws
    /// The live-progress bytes published for `jobID` (what `ferry wait --progress` and the dashboard read), if any.
    func liveBytes(of jobID: UUID) async throws -> Int64?
    func close() async
}
