/// Why `FerryStore.waitForBatchNotification` returned. In every case the caller reads the state again.
public enum BatchWakeup: Sendable, Hashable {
    /// A `ferry_batch` notification named the batch (it completed or was reopened).
    case notified
    /// The session was not listening yet (first call, or a new connection after a lost one) and now is.
    /// Anything announced before cannot be heard any more, so read the state now.
    case subscribed
    /// Nothing arrived within the timeout.
    case timedOut
}
