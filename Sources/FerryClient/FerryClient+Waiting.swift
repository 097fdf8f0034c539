import FerryStore

extension FerryClient {
    /// Sleeps up to `duration`, waking early on a completion notification of `batch` (nil: sleeps the whole time).
    /// `ferry wait` and ``waitForBatch(_:timeout:pollInterval:)`` wait with this between their reads.
    ///
    /// Subscribing again means the last LISTEN was lost: a reconnect, or a transaction-mode pooler (PgBouncer) that
    /// runs each statement on any server connection; such a pause sleeps rather than returns at once, so a loop
    /// polls rather than spins.
    public func pause(_ duration: Duration, batch: String?, state: inout BatchWaiting) async throws -> BatchWaiting.Pause {
        do {
            guard let batch, !state.polling else {
                try await Task.sleep(for: duration)
                return .waited
            }
            if try await store.waitForBatchNotification(batch, timeout: duration) == .subscribed {
                if state.subscribed { try await Task.sleep(for: duration) }
                state.subscribed = true
            }
            return .waited
        } catch where FerryStoreError.code(of: error) == .connectionLost {
            return .connectionLost
        } catch where FerryStoreError.code(of: error) == .readOnly {
            // A hot standby: NOTIFY is not replicated and LISTEN is refused there. The reads work; poll.
            // Returned at once, so the caller can say so before it reads again.
            state.polling = true
            return .startedPolling
        }
    }
}
