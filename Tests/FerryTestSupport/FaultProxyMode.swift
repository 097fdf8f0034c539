/// What a ``FaultProxy`` does with the traffic of every connection, set on command while they are open.
public enum FaultProxyMode: Sendable, Equatable {
    /// Forward every byte at once.
    case pass
    /// Hold every piece read for this long before forwarding it (a slow path, not a silent one).
    case delay(Duration)
    /// Forward at most this many bytes per second in each direction of each connection.
    case throttle(bytesPerSecond: Int)
    /// Forward nothing and read nothing, connections left open: a peer gone silent. The kernel under the proxy
    /// still acknowledges what it buffers, so only application-level deadlines (not TCP keepalives) notice.
    case stall
    /// Reset (RST) every open connection and every new one at once.
    case reset
}
