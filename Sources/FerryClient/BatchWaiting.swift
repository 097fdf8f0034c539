/// What one waiting loop knows about how to sleep between reads of a batch's state: on the batch's notifications
/// while the server delivers them, on a timer once it refused LISTEN as read-only (a hot standby). Give the same
/// value to every ``FerryClient/pause(_:batch:state:)`` of one loop.
public struct BatchWaiting: Sendable {
    /// How a pause ended. In every case the caller reads the state again.
    public enum Pause: Sendable, Hashable {
        /// A notification came, or the time passed.
        case waited
        /// The server refused LISTEN as read-only (SQLSTATE 25006): returned at once, and only once, so the caller
        /// can say so; every later pause sleeps its whole time.
        case startedPolling
        /// The connection was lost while listening: the next read reconnects (or meets the loss itself).
        case connectionLost
    }

    /// The server refused LISTEN: every pause is a plain sleep.
    public internal(set) var polling = false
    var subscribed = false

    public init() {}
}
