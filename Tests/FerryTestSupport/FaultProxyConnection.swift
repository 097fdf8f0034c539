import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One client connection of a ``FaultProxy`` and its connection to the target, pumped by a thread per direction.
/// The sockets are non-blocking and every wait is a short poll, so a pump sees a new mode, a reset or the end
/// within 50 ms, and only the last pump to end closes the two sockets.
final class FaultProxyConnection: @unchecked Sendable {
    /// Strong: a pump may outlive the test's last reference to the proxy (it ends within a poll's timeout of its close).
    private let proxy: FaultProxy
    private let client: Int32
    private let server: Int32

    private struct State {
        /// This connection's one-shot stall (``FaultProxy/stall(after:_:)``): for good.
        var stalled = false
        /// Both pumps stop at their next turn.
        var ending = false
        /// The sockets are closed with SO_LINGER 0: the peers get an RST.
        var reset = false
        var pumpsLeft = 2
    }

    private let state = Mutex(State())

    /// Connects to the proxy's target; nil (the client closed) when the target refuses.
    init?(proxy: FaultProxy, client: Int32) {
        self.proxy = proxy
        self.client = client
        let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.server = server
        var address = FaultProxy.loopback(port: proxy.targetPort)
        let connected = server < 0 ? -1 : withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard server >= 0, connected == 0 else {
            if server >= 0 { close(server) }
            close(client)
            return nil
        }
        for fd in [client, server] { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
    }

    func start() {
        for direction in [FaultProxyDirection.upstream, .downstream] {
            let thread = Thread { [self] in
                pump(direction)
                finishPump()
            }
            thread.name = "fault-proxy-\(direction)"
            thread.start()
        }
    }

    /// Both peers get an RST at once (the pumps end within a poll's timeout; before `start`, at once).
    func reset() {
        state.withLock { state in
            state.reset = true
            state.ending = true
        }
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        for fd in [client, server] { setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size)) }
    }

    /// Ends both directions (the proxy closes).
    func shutdownBoth() {
        state.withLock { $0.ending = true }
    }

    /// Closes a connection whose pumps never started (a reset at accept).
    func closeUnstarted() {
        close(client)
        close(server)
    }

    private var ending: Bool { state.withLock { $0.ending } }

    private func finishPump() {
        let last = state.withLock { state -> Bool in
            state.pumpsLeft -= 1
            return state.pumpsLeft == 0
        }
        if last {
            close(client)
            close(server)
            proxy.forget(self)
        }
    }

    private func pump(_ direction: FaultProxyDirection) {
        let (from, to) = direction == .upstream ? (client, server) : (server, client)
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while !ending {
            var stalled = state.withLock { $0.stalled }
            if stalled || proxy.mode == .stall {
                // Silent: nothing read, but a peer that gives up and closes ends the connection.
                if Self.wait(from, Self.readHangUp) & (Self.readHangUp | Int16(POLLHUP) | Int16(POLLERR)) != 0 {
                    if direction == .upstream { proxy.noteClientClosed() }
                    state.withLock { $0.ending = true }
                }
                continue
            }
            guard Self.wait(from, Int16(POLLIN)) != 0 else { continue }
            let allowed = proxy.allowance(direction, wanted: buffer.count, stalled: &stalled)
            if stalled { state.withLock { $0.stalled = true } }
            guard allowed > 0 else { continue }
            let read = buffer.withUnsafeMutableBytes { recv(from, $0.baseAddress, allowed, 0) }
            if read < allowed { proxy.refund(direction, allowed - max(0, read)) }
            if read <= 0 && direction == .upstream && !(read < 0 && (errno == EAGAIN || errno == EINTR)) { proxy.noteClientClosed() }
            if read == 0 {
                // The sender finished: pass the half-close on, unless the connection is being reset.
                if !state.withLock({ $0.reset }) { shutdown(to, Int32(SHUT_WR)) }
                return
            }
            if read < 0 {
                if errno == EAGAIN || errno == EINTR { continue }
                state.withLock { $0.ending = true }
                return
            }
            switch proxy.mode {
            case .delay(let duration): Thread.sleep(forTimeInterval: Self.seconds(duration))
            case .throttle(let rate): Thread.sleep(forTimeInterval: Double(read) / Double(max(1, rate)))
            default: break
            }
            guard send(to, buffer, count: read) else {
                state.withLock { $0.ending = true }
                return
            }
            proxy.count(read, direction)
        }
    }

    /// Writes all of `buffer[..<count]`, waiting for room; false when the peer is gone or the connection ends.
    private func send(_ fd: Int32, _ buffer: [UInt8], count: Int) -> Bool {
        var offset = 0
        while offset < count {
            if ending { return false }
            let sent = buffer.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, count - offset, Int32(MSG_NOSIGNAL)) }
            if sent > 0 {
                offset += sent
            } else if sent < 0 && (errno == EAGAIN || errno == EINTR) {
                _ = Self.wait(fd, Int16(POLLOUT))
            } else {
                return false
            }
        }
        return true
    }

    /// POLLRDHUP (Linux): the peer closed its side.
    private static let readHangUp: Int16 = 0x2000

    /// poll(2) on one socket for up to 50 ms; the events that came (0 on timeout).
    private static func wait(_ fd: Int32, _ events: Int16) -> Int16 {
        var entry = pollfd(fd: fd, events: events, revents: 0)
        return poll(&entry, 1, 50) > 0 ? entry.revents : 0
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
