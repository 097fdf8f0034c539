import FerryStore
import Logging
import Postgres
import Synchronization

/// Whether the database accepts this worker's writes. A server that answers but refuses them (read-only,
/// `SQLSTATE 25006`: a standby, a demoted primary, `default_transaction_read_only`; or out of disk, `53100`) is
/// not an error of the job or of the connection: the worker stops claiming, keeps the outcomes of the jobs it
/// finishes meanwhile (and skips their progress writes: nothing else can touch its claims while nobody can write),
/// says so once in the log and on `/ready`, and writes the outcomes once the server takes writes again.
final class DatabaseWrites: Sendable {
    private struct State {
        /// The SQLSTATE of the refusal while writes are refused; nil while they are accepted.
        var refusal: SQLState?
        var since: ContinuousClock.Instant?
        /// When writes were last accepted again after a refusal.
        var recovered: ContinuousClock.Instant?
    }

    private let state = Mutex(State())
    private let logger: Logger
    /// Told each change: the refusal's SQLSTATE when writes stop being accepted, nil when they are accepted again.
    private let changed: @Sendable (SQLState?) -> Void

    init(logger: Logger, changed: @escaping @Sendable (SQLState?) -> Void = { _ in }) {
        self.logger = logger
        self.changed = changed
    }

    /// False from a refused write until a write is accepted again.
    var accepting: Bool { state.withLock { $0.refusal == nil } }

    /// The SQLSTATE of the refusal in force, if any.
    var refusal: SQLState? { state.withLock { $0.refusal } }

    /// Notes `error` if it is a refusal to write (returns true): the first one of a stretch is logged and
    /// announced. Any other error returns false and changes nothing.
    @discardableResult
    func refused(_ error: any Error) -> Bool {
        guard let failure = FerryStoreError(classifying: error), failure.refusesWrites, let code = failure.sqlState else { return false }
        let sqlState = SQLState(code)
        let first = state.withLock { state -> Bool in
            guard state.refusal == nil else { return false }
            state.refusal = sqlState
            state.since = .now
            return true
        }
        if first {
            logger.error(
                "the database refuses writes (\(Self.reason(sqlState))): claiming nothing and keeping finished jobs' outcomes until it accepts them again",
                metadata: ["sqlstate": "\(sqlState)"])
            changed(sqlState)
        }
        return true
    }

    /// Notes that a write was accepted: the first after a refusal is logged and announced.
    func accepted() {
        let refused = state.withLock { state -> (SQLState, Duration)? in
            guard let refusal = state.refusal else { return nil }
            let lasted = ContinuousClock.now - (state.since ?? .now)
            state.refusal = nil
            state.since = nil
            state.recovered = .now
            return (refusal, lasted)
        }
        guard let (sqlState, lasted) = refused else { return }
        logger.notice(
            "the database accepts writes again: claiming and writing the kept outcomes",
            metadata: ["sqlstate": "\(sqlState)", "refused_for_s": "\(lasted.components.seconds)"])
        changed(nil)
    }

    /// The answer to a progress write the database refused: taken as accepted, so the job goes on. While nobody can
    /// write, nobody can rescue or cancel the job either; what is lost is a resume point, which costs only a
    /// transfer from the one before should this attempt die before the outcome is written.
    static let skippedProgress = ProgressAck(accepted: true, cancelRequested: false)

    /// Whether this worker may rescue other workers' jobs now: not while writes are refused (nobody's heartbeat
    /// lands then), nor for `grace` after they are accepted again, so that every worker of the fleet, as stuck as
    /// this one, has written a heartbeat before its silence is taken for death.
    func rescueAllowed(grace: Duration) -> Bool {
        state.withLock { state in
            guard state.refusal == nil else { return false }
            guard let recovered = state.recovered else { return true }
            return ContinuousClock.now - recovered >= grace
        }
    }

    /// What a refusal means, for the log and `/ready`.
    static func reason(_ sqlState: SQLState) -> String {
        sqlState == .diskFull
            ? "the server's disk is full [SQLSTATE \(sqlState)]"
            : "the server is read-only: a standby, a demoted primary or default_transaction_read_only [SQLSTATE \(sqlState)]"
    }
}
