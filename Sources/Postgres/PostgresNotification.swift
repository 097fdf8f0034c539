/// A notification received on a channel this connection listens on.
public struct PostgresNotification: Sendable, Hashable {
    public let channel: String
    public let payload: String
    /// Process id of the server backend that sent it.
    public let senderPID: Int32
}
