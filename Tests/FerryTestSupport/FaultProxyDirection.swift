/// A direction of a ``FaultProxy`` connection.
public enum FaultProxyDirection: Sendable, Equatable {
    /// From the client to the target (a request, an upload's body).
    case upstream
    /// From the target back to the client (a response, a download's body).
    case downstream
}
