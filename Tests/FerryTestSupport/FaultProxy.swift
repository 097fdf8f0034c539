import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A user-space TCP proxy on loopback in front of a test server, which passes, delays, throttles, resets or stalls
/// the traffic on command (``set(_:)``), or stalls the one connection that carries a given byte of a direction
/// (``stall(after:_:)``: a transfer that goes silent mid-body while new connections still pass).
///
/// Each connection is pumped by two threads with blocking sockets: a stalled direction is simply not read, so the
/// sender meets back-pressure as from a peer that stopped reading. What the proxy cannot fake is a black hole:
/// its own kernel acknowledges every packet, so TCP keepalives and `tcp_user_timeout` never fire against it (the
/// network-namespace tests drop packets for that).
public final class FaultProxy: @unchecked Sendable {
    /// The loopback port clients connect to.
    public let port: Int
    let targetPort: Int
    private let listener: Int32

    struct Trigger {
        var direction: FaultProxyDirection
        var bytesLeft: Int
    }

    struct State {
        var mode = FaultProxyMode.pass
        var trigger: Trigger?
        var connections: [FaultProxyConnection] = []
        var accepted: [ContinuousClock.Instant] = []
        var clientsClosed: [ContinuousClock.Instant] = []
        var stalledAt: ContinuousClock.Instant?
        var forwarded: [FaultProxyDirection: Int] = [:]
        var closed = false
    }

    let state = Mutex(State())

    /// Listens on 127.0.0.1 (a free port) and forwards to 127.0.0.1:`targetPort`.
    public init(targetPort: Int) throws {
        self.targetPort = targetPort
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw TestSupportError("proxy: socket() failed: errno \(errno)") }
        var one: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 128) == 0 else {
            Glibc.close(listener)
            throw TestSupportError("proxy: cannot listen on loopback: errno \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        self.listener = listener
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "fault-proxy-accept"
        thread.start()
    }

    deinit { close() }

    /// `http://127.0.0.1:PORT`, for a client's base URL.
    public var url: String { "http://127.0.0.1:\(port)" }

    /// Sets what happens to every connection's traffic from now on (``FaultProxyMode``).
    public func set(_ mode: FaultProxyMode) {
        let open = state.withLock { state -> [FaultProxyConnection] in
            state.mode = mode
            return state.connections
        }
        if mode == .reset { for connection in open { connection.reset() } }
    }

    /// Forwards `bytes` more bytes of `direction` (over all connections), then stalls for good the connection that
    /// would carry the next one: it stays open and silent until the client gives up. Later connections pass.
    public func stall(after bytes: Int, _ direction: FaultProxyDirection) {
        state.withLock { $0.trigger = Trigger(direction: direction, bytesLeft: max(0, bytes)) }
    }

    /// When a ``stall(after:_:)`` fired, if it did.
    public var stalledAt: ContinuousClock.Instant? { state.withLock { $0.stalledAt } }

    /// When each connection was accepted, in order.
    public var acceptedAt: [ContinuousClock.Instant] { state.withLock { $0.accepted } }

    /// When clients closed or reset their connections, in order (a client giving up on a stalled one shows here).
    public var clientsClosedAt: [ContinuousClock.Instant] { state.withLock { $0.clientsClosed } }

    func noteClientClosed() {
        state.withLock { $0.clientsClosed.append(.now) }
    }

    /// Bytes forwarded in `direction` so far.
    public func forwarded(_ direction: FaultProxyDirection) -> Int { state.withLock { $0.forwarded[direction] ?? 0 } }

    /// Stops listening and closes every connection (idempotent).
    public func close() {
        let open = state.withLock { state -> [FaultProxyConnection]? in
            guard !state.closed else { return nil }
            state.closed = true
            return state.connections
        }
        guard let open else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        Glibc.close(listener)
        for connection in open { connection.shutdownBoth() }
    }

    var isClosed: Bool { state.withLock { $0.closed } }

    var mode: FaultProxyMode { state.withLock { $0.mode } }

    private func acceptLoop() {
        while !isClosed {
            let client = accept(listener, nil, nil)
            guard client >= 0 else {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            guard let connection = FaultProxyConnection(proxy: self, client: client) else { continue }
            let reset = state.withLock { state -> Bool in
                state.accepted.append(.now)
                state.connections.append(connection)
                return state.mode == .reset || state.closed
            }
            if reset {
                connection.reset()
                connection.closeUnstarted()
                forget(connection)
            } else {
                connection.start()
            }
        }
    }

    /// How many bytes of `direction` a connection may read now: 0 when it must not read (a stall), else at most
    /// `wanted`, cut at a pending trigger. `stalled` is the connection's own one-shot stall, which the trigger sets.
    func allowance(_ direction: FaultProxyDirection, wanted: Int, stalled: inout Bool) -> Int {
        state.withLock { state in
            if stalled || state.mode == .stall || state.closed { return 0 }
            guard var trigger = state.trigger, trigger.direction == direction else { return wanted }
            if trigger.bytesLeft == 0 {
                state.trigger = nil
                state.stalledAt = .now
                stalled = true
                return 0
            }
            let allowed = min(wanted, trigger.bytesLeft)
            trigger.bytesLeft -= allowed
            state.trigger = trigger
            return allowed
        }
    }

    /// A connection whose pumps ended (both sockets closed).
    func forget(_ connection: FaultProxyConnection) {
        state.withLock { $0.connections.removeAll { $0 === connection } }
    }

    /// Gives back what `allowance` granted but a read did not take.
    func refund(_ direction: FaultProxyDirection, _ bytes: Int) {
        state.withLock { state in
            if var trigger = state.trigger, trigger.direction == direction {
                trigger.bytesLeft += bytes
                state.trigger = trigger
            }
        }
    }

    func count(_ bytes: Int, _ direction: FaultProxyDirection) {
        state.withLock { $0.forwarded[direction, default: 0] += bytes }
    }

    static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
