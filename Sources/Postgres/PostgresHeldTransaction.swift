import Logging

/// A transaction on a reserved pooled connection, kept open across awaits (see
/// `PostgresClient.withHeldTransaction`). Each `run` executes on the connection's own thread.
public final class PostgresHeldTransaction: Sendable {
    private let slot: PostgresClient.Slot
    private let configuration: PostgresConfiguration
    private let logger: Logger

    init(slot: PostgresClient.Slot, configuration: PostgresConfiguration, logger: Logger) {
        self.slot = slot
        self.configuration = configuration
        self.logger = logger
    }

    /// Runs `body` on the reserved connection without ending the open transaction.
    public func run<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await run(keepTransaction: true) { connection in
            // A connection reopened after a loss has no transaction: running on would silently lose the locks.
            guard connection.isInTransaction else {
                throw PostgresError(code: .connectionLost, reason: "the connection was lost during a held transaction")
            }
            return try body(connection)
        }
    }

    func run<T: Sendable>(keepTransaction: Bool, _ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        let (slot, configuration, logger) = (self.slot, self.configuration, self.logger)
        return try await withCheckedThrowingContinuation { continuation in
            let accepted = slot.thread.submit {
                continuation.resume(with: Result {
                    try slot.run(configuration: configuration, logger: logger, keepTransaction: keepTransaction, body)
                })
            }
            if !accepted {
                continuation.resume(throwing: PostgresError(code: .clientClosed, reason: "the client is closed"))
            }
        }
    }
}
