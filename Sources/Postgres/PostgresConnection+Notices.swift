import CLibPQ

extension PostgresConnection {
    /// Runs `body` and returns what it returned together with every message the server sent meanwhile (notices,
    /// warnings and, with `client_min_messages` lowered, LOG lines such as `auto_explain` plans).
    ///
    /// Messages are otherwise logged (`ServerMessageLog`), which is restored before returning.
    public func collectingServerMessages<R>(_ body: () throws -> R) rethrows -> (R, [String]) {
        let sink = ServerMessageSink()
        let context = Unmanaged.passRetained(sink)
        defer { context.release() }
        PQsetNoticeReceiver(handle, { argument, result in
            guard let argument, let result else { return }
            let sink = Unmanaged<ServerMessageSink>.fromOpaque(argument).takeUnretainedValue()
            if let message = PQresultErrorField(result, Int32(UInt8(ascii: "M"))) {
                sink.messages.append(String(cString: message))
            }
        }, context.toOpaque())
        defer { PQsetNoticeReceiver(handle, ServerMessageLog.receiver, serverMessages.toOpaque()) }
        let value = try body()
        return (value, sink.messages)
    }
}

/// Collects server messages for `collectingServerMessages`; touched only on the connection's thread.
private final class ServerMessageSink {
    var messages: [String] = []
}
