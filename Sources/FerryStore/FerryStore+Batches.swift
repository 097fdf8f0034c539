import FerryCore
import Foundation
import Postgres

extension FerryStore {
    /// The channel a batch event is announced on, in the transaction that records it. Payload: the batch name.
    public static let batchChannel = "ferry_batch"

    /// Waits up to `timeout` for a `ferry_batch` notification naming `batch` (any batch when `nil`).
    ///
    /// The pooled session LISTENs from its first call on. A session that was not listening yet (the first call,
    /// or a fresh connection after a lost one) subscribes and returns `.subscribed` at once without waiting:
    /// a notification sent before could not be heard, so the caller must read the state again first. Use it as
    /// read, wait, read, wait …, on a store with one pooled connection, and no completion is ever missed.
    public func waitForBatchNotification(_ batch: String?, timeout: Duration) async throws -> BatchWakeup {
        let channel = Self.batchChannel
        do {
            return try await client.withConnection { connection in
                let listening = try connection.query(
                    "SELECT EXISTS (SELECT 1 FROM pg_listening_channels() AS c WHERE c = $1) AS listening", [channel])
                guard try listening.rows[0].decode(Bool.self, column: "listening") else {
                    try connection.listen(channel)
                    return .subscribed
                }
                let deadline = ContinuousClock.now + timeout
                while true {
                    let remaining = deadline - ContinuousClock.now
                    guard remaining > .zero else { return .timedOut }
                    for note in try connection.waitForNotifications(timeout: remaining) where note.channel == channel {
                        if batch == nil || note.payload == batch { return .notified }
                    }
                }
            }
        } catch {
            throw Self.translate(error)
        }
    }
}
