import CLibPQ
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension PostgresConnection {
    /// Subscribes to a channel. The name is escaped as an identifier.
    public func listen(_ channel: String) throws {
        try execute("LISTEN \(PostgresIdentifier(channel).quoted)")
        hasListened = true
    }

    /// Stops listening to a channel.
    public func unlisten(_ channel: String) throws {
        try execute("UNLISTEN \(PostgresIdentifier(channel).quoted)")
    }

    /// Sends a notification (`pg_notify`) with the payload as a bind parameter.
    public func notify(_ channel: String, payload: String = "") throws {
        try query("SELECT pg_notify($1, $2)", [channel, payload])
    }

    /// Waits up to `timeout` for notifications and returns all that arrived (possibly none).
    ///
    /// Uses `poll` on the connection's socket, so the wait costs no CPU. Throws `.connectionLost` when the
    /// server goes away, so callers can reconnect.
    public func waitForNotifications(timeout: Duration) throws -> [PostgresNotification] {
        var received = try drainNotifications()
        guard received.isEmpty else { return received }
        let deadline = ContinuousClock.now + timeout
        while received.isEmpty {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { break }
            let socket = PQsocket(handle)
            guard socket >= 0 else {
                throw PostgresError(code: .connectionLost, reason: "the connection to PostgreSQL was lost")
            }
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(clamping: remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000 + 1)
            let ready = poll(&descriptor, 1, milliseconds)
            if ready < 0 && errno != EINTR {
                throw PostgresError(code: .connectionLost, reason: "waiting on the PostgreSQL socket failed")
            }
            received = try drainNotifications()
        }
        return received
    }

    /// Reads whatever the socket holds and returns queued notifications without blocking.
    func drainNotifications() throws -> [PostgresNotification] {
        guard PQconsumeInput(handle) == 1 else {
            throw PostgresError(code: .connectionLost, reason: "the connection to PostgreSQL was lost")
        }
        var received = [PostgresNotification]()
        while let notify = PQnotifies(handle) {
            let note = notify.pointee
            received.append(
                PostgresNotification(
                    channel: String(cString: note.relname),
                    payload: note.extra.map { String(cString: $0) } ?? "",
                    senderPID: note.be_pid
                ))
            PQfreemem(notify)
        }
        return received
    }
}
