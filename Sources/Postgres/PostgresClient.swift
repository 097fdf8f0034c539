import Foundation
import Logging
import Synchronization

/// A small pool of libpq connections, each confined to its own thread.
///
/// `withConnection` borrows a connection, runs your (synchronous) code on that connection's thread and resumes
/// your task with the result; the cooperative pool never blocks on libpq. Broken connections are dropped and
/// reopened on next use, so a server restart costs callers one failed call, not a dead process.
public final class PostgresClient: Sendable {
    public let configuration: PostgresConfiguration
    let logger: Logger
    private let slots: [Slot]
    private let state: Mutex<PoolState>

    struct PoolState {
        var idle: [Int]
        var waiters: [(id: UInt64, continuation: CheckedContinuation<Int, any Error>)] = []
        var nextWaiterID: UInt64 = 0
        var closed = false
    }

    public init(configuration: PostgresConfiguration, logger: Logger = Logger(label: "ferry.postgres")) {
        self.configuration = configuration
        self.logger = logger
        self.slots = (0..<configuration.poolSize).map { Slot(index: $0) }
        self.state = Mutex(PoolState(idle: Array((0..<configuration.poolSize).reversed())))
    }

    deinit {
        for slot in slots { slot.thread.stop() }
    }

    /// True when the caller runs on one of the dedicated connection threads (never the cooperative pool).
    public static var isOnConnectionThread: Bool { PostgresThread.isCurrent }

    /// Runs `body` with a pooled connection on that connection's own thread.
    ///
    /// Opens (or reopens) the connection first if needed. If `body` leaves a transaction open, it is rolled back.
    /// If the connection turns out broken, or a write on it is refused as read-only (`25006`: it may lead to a
    /// demoted primary), it is discarded so the next caller gets a fresh one.
    public func withConnection<T: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) throws -> T
    ) async throws -> T {
        let index = try await acquire()
        defer { release(index) }
        let slot = slots[index]
        let configuration = self.configuration
        let logger = self.logger
        return try await withCheckedThrowingContinuation { continuation in
            let accepted = slot.thread.submit {
                continuation.resume(with: Result { try slot.run(configuration: configuration, logger: logger, body) })
            }
            if !accepted {
                continuation.resume(throwing: PostgresError(code: .clientClosed, reason: "the client is closed"))
            }
        }
    }

    /// Runs `body` inside a transaction on a pooled connection.
    public func withTransaction<T: Sendable>(
        isolation: PostgresConnection.IsolationLevel = .readCommitted,
        _ body: @escaping @Sendable (PostgresConnection) throws -> T
    ) async throws -> T {
        try await withConnection { connection in
            try connection.transaction(isolation: isolation, body)
        }
    }

    /// Closes every connection after the work already queued. Later calls fail with `.clientClosed`.
    public func close() {
        let waiters = state.withLock { state -> [CheckedContinuation<Int, any Error>] in
            state.closed = true
            defer { state.waiters.removeAll() }
            return state.waiters.map(\.continuation)
        }
        for waiter in waiters {
            waiter.resume(throwing: PostgresError(code: .clientClosed, reason: "the client is closed"))
        }
        for slot in slots {
            slot.thread.submit { slot.connection = nil }
            slot.thread.stop()
        }
    }

    /// Runs `body` inside a transaction that stays open across suspension points: `body` may await other work
    /// (an HTTP call, say) between statements while holding the transaction's row locks. The connection is
    /// reserved for the whole call. Commits when `body` returns, rolls back when it throws.
    ///
    /// Use sparingly: a reserved connection is unavailable to everyone else until `body` ends.
    public func withHeldTransaction<T: Sendable>(
        _ body: (PostgresHeldTransaction) async throws -> T
    ) async throws -> T {
        let index = try await acquire()
        defer { release(index) }
        let held = PostgresHeldTransaction(slot: slots[index], configuration: configuration, logger: logger)
        try await held.run(keepTransaction: true) { try $0.execute("BEGIN") }
        do {
            let value = try await body(held)
            try await held.run { try $0.execute("COMMIT") }
            return value
        } catch {
            try? await held.run(keepTransaction: false) { _ in }
            throw error
        }
    }

    private func acquire() async throws -> Int {
        enum Decision { case slot(Int), wait(UInt64), closed }
        // Fast path without suspending.
        let fast: Decision = state.withLock { state in
            if state.closed { return .closed }
            if let index = state.idle.popLast() { return .slot(index) }
            return .wait(0)
        }
        switch fast {
        case .slot(let index): return index
        case .closed: throw PostgresError(code: .clientClosed, reason: "the client is closed")
        case .wait: break
        }
        return try await withCheckedThrowingContinuation { continuation in
            let decision: Decision = state.withLock { state in
                if state.closed { return .closed }
                if let index = state.idle.popLast() { return .slot(index) }
                state.nextWaiterID += 1
                state.waiters.append((state.nextWaiterID, continuation))
                return .wait(state.nextWaiterID)
            }
            switch decision {
            case .slot(let index): continuation.resume(returning: index)
            case .closed:
                continuation.resume(throwing: PostgresError(code: .clientClosed, reason: "the client is closed"))
            case .wait: break
            }
        }
    }

    private func release(_ index: Int) {
        let waiter = state.withLock { state -> CheckedContinuation<Int, any Error>? in
            if !state.waiters.isEmpty { return state.waiters.removeFirst().continuation }
            state.idle.append(index)
            return nil
        }
        waiter?.resume(returning: index)
    }

    /// One pooled connection and the thread that owns it.
    ///
    /// `connection` is only read or written on `thread`; that confinement is what makes `@unchecked` sound.
    final class Slot: @unchecked Sendable {
        let thread: PostgresThread
        var connection: PostgresConnection?

        init(index: Int) {
            self.thread = PostgresThread(name: "ferry.pg.\(index)")
        }

        func run<T>(
            configuration: PostgresConfiguration, logger: Logger, keepTransaction: Bool = false,
            _ body: (PostgresConnection) throws -> T
        ) throws -> T {
            if let existing = connection, !existing.isHealthy {
                logger.notice("dropping broken PostgreSQL connection")
                connection = nil
            }
            let active: PostgresConnection
            if let existing = connection {
                active = existing
            } else {
                active = try PostgresConnection(configuration: configuration, logger: logger)
                connection = active
            }
            do {
                let value = try body(active)
                if active.isInTransaction && !keepTransaction { try? active.execute("ROLLBACK") }
                return value
            } catch let error as PostgresError where error.isConnectionLoss {
                logger.warning("PostgreSQL connection lost", metadata: ["error": "\(error)"])
                connection = nil
                throw error
            } catch {
                // A write refused as read-only may mean this connection leads to a demoted primary that stays up as
                // a standby: a new connection finds the new primary (a multi-host URL, target_session_attrs).
                if !active.isHealthy || (error as? PostgresError)?.sqlState == .readOnlySQLTransaction {
                    connection = nil
                } else if active.isInTransaction {
                    try? active.execute("ROLLBACK")
                }
                throw error
            }
        }
    }
}
