/// The metrics endpoint could not listen on its address (in use, not an address of this machine, a port below
/// 1024 without the privilege).
public struct MetricsEndpointError: Error, Sendable, CustomStringConvertible {
    public var address: ListenAddress
    public var reason: String

    public var description: String {
        "cannot serve metrics on \(address): \(reason); choose another address with --metrics-listen HOST:PORT"
    }
}
