import FerryStore
import Foundation
import Postgres

/// How a one-shot command rides out PostgreSQL being away (a restart, a failover): it tries again with capped
/// exponential backoff until `bound` has passed, then gives up with the last error (exit 69 as without waiting).
///
/// Only failures that waiting can cure are retried, told apart by libpq's connection status and SQLSTATE, never
/// by message text: no connection or a lost one (`08*`, `57P01` admin shutdown, `57P02`, `57P03` cannot connect
/// now) and `25006` (a write reached a server that is read-only: a standby, or the old primary mid-failover).
struct DatabaseWait: Sendable {
    /// How long to keep trying; zero: try once.
    var bound: Duration
    var firstDelay: Duration = .milliseconds(250)
    /// At most a second between tries: a failover ends at a moment nobody announces, and a longer pause would make
    /// every waiting call overshoot it (measured: pauses growing to 4 s made a 4–7 s failover cost each call 7.9 s).
    var maxDelay: Duration = .seconds(1)

    static let none = DatabaseWait(bound: .zero)

    /// The deadline of the wait an attempt runs in: stores made during it cut their connect timeout to it
    /// (`PostgresConfiguration.connectDeadline`), so the last attempt ends near the deadline too.
    @TaskLocal static var attemptDeadline: ContinuousClock.Instant?

    var isOn: Bool { bound > .zero }

    /// True for errors that a later attempt, on a fresh connection, may not meet.
    static func isWorthWaiting(_ error: any Error) -> Bool {
        let code = FerryStoreError.code(of: error)
        return code == .connectionLost || code == .readOnly
    }

    /// Runs `attempt` until it succeeds, fails with an error waiting cannot cure, or `bound` has passed. Each
    /// attempt must start afresh (open its own connection). Says once on standard error what it waits for.
    func run<T>(_ attempt: () async throws -> T) async throws -> T {
        let deadline = ContinuousClock.now + bound
        var delay = firstDelay
        var announced = false
        while true {
            do {
                return try await Self.$attemptDeadline.withValue(isOn ? deadline : nil) { try await attempt() }
            } catch where isOn && Self.isWorthWaiting(error) {
                let now = ContinuousClock.now
                guard now < deadline else {
                    printError("gave up waiting for PostgreSQL after \(Self.seconds(bound))")
                    throw error
                }
                if !announced {
                    announced = true
                    printError("waiting for PostgreSQL (\(Self.reason(error))); giving up in \(Self.seconds(deadline - now))")
                }
                try await Task.sleep(for: min(delay, deadline - now))
                delay = min(delay * 2, maxDelay)
            }
        }
    }

    static func reason(_ error: any Error) -> String {
        guard let error = FerryStoreError(classifying: error) else { return "\(error)" }
        if error.code == .readOnly { return "it does not accept writes [SQLSTATE 25006]" }
        return error.sqlState.map { "\(error.message) [SQLSTATE \($0)]" } ?? error.message
    }

    static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return "\(Int((Double(seconds) + Double(attoseconds) / 1e18).rounded()))s"
    }
}
