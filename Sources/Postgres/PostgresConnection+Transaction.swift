extension PostgresConnection {
    /// Transaction isolation levels.
    public enum IsolationLevel: String, Sendable {
        case readCommitted = "READ COMMITTED"
        case repeatableRead = "REPEATABLE READ"
        case serializable = "SERIALIZABLE"
    }

    /// Runs `body` inside `BEGIN … COMMIT`. Any error rolls back and is rethrown; nothing is half done.
    public func transaction<T>(
        isolation: IsolationLevel = .readCommitted, _ body: (PostgresConnection) throws -> T
    ) throws -> T {
        try execute(isolation == .readCommitted ? "BEGIN" : "BEGIN ISOLATION LEVEL \(isolation.rawValue)")
        let value: T
        do {
            value = try body(self)
        } catch {
            // A lost connection has already rolled back on the server.
            if isHealthy { try? execute("ROLLBACK") }
            throw error
        }
        try execute("COMMIT")
        return value
    }
}
