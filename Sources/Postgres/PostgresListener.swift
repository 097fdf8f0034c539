import Foundation
import Logging
import Synchronization

/// A dedicated connection that LISTENs on channels and delivers notifications, reconnecting with backoff.
///
/// Runs on its own thread (the wait is a blocking `poll`). After a reconnect it delivers a synthetic
/// notification with an empty channel name, because anything sent while the connection was down was lost:
/// consumers should treat it as "look again".
///
/// A hot standby refuses LISTEN (SQLSTATE 25006: NOTIFY is not replicated, so nothing could be heard there). The
/// listener then reports it once through `refused` and keeps trying with the usual backoff (at most every 5 s)
/// without logging each refusal, so a standby that is promoted is listened to again.
public final class PostgresListener: Sendable {
    private let configuration: PostgresConfiguration
    private let channels: [String]
    private let logger: Logger
    private let thread: PostgresThread
    private let stopped = Mutex(false)

    public init(configuration: PostgresConfiguration, channels: [String], logger: Logger) {
        self.configuration = configuration
        self.channels = channels
        self.logger = logger
        self.thread = PostgresThread(name: "ferry.listen")
    }

    deinit {
        thread.stop()
    }

    /// Starts listening; `deliver` is called on the listener's thread for each notification, and `listening` (if
    /// given) each time a fresh connection has LISTENed on every channel, first start and reconnects alike.
    /// `refused` (if given) is called when the server refuses LISTEN as read-only (a hot standby), once until
    /// LISTEN succeeds again; without it the listener logs that as a warning, once as well.
    public func start(
        listening: (@Sendable () -> Void)? = nil, refused: (@Sendable (PostgresError) -> Void)? = nil,
        _ deliver: @escaping @Sendable (PostgresNotification) -> Void
    ) {
        let configuration = self.configuration
        let channels = self.channels
        let logger = self.logger
        thread.submit { [self] in
            var connection: PostgresConnection?
            var backoff = Duration.milliseconds(100)
            var hadConnection = false
            // True from a refusal as read-only until LISTEN works again: one report per such stretch.
            var refusedReported = false
            while !stopped.withLock({ $0 }) {
                do {
                    if connection == nil || !(connection!.isHealthy) {
                        connection = nil
                        let fresh = try PostgresConnection(configuration: configuration, logger: logger)
                        for channel in channels { try fresh.listen(channel) }
                        connection = fresh
                        backoff = .milliseconds(100)
                        if refusedReported {
                            logger.notice("notification listener: the server accepts LISTEN again (promoted?)")
                            refusedReported = false
                        }
                        listening?()
                        if hadConnection {
                            logger.notice("notification listener reconnected")
                            deliver(PostgresNotification(channel: "", payload: "", senderPID: 0))
                        }
                        hadConnection = true
                    }
                    for note in try connection!.waitForNotifications(timeout: .milliseconds(500)) {
                        deliver(note)
                    }
                } catch {
                    connection = nil
                    if let error = error as? PostgresError, error.sqlState == .readOnlySQLTransaction {
                        if !refusedReported {
                            refusedReported = true
                            if let refused {
                                refused(error)
                            } else {
                                logger.warning(
                                    "notification listener: the server is read-only (a hot standby?) and refuses LISTEN [SQLSTATE 25006]; trying again quietly")
                            }
                        } else {
                            logger.debug("notification listener: LISTEN still refused [SQLSTATE 25006]")
                        }
                    } else {
                        logger.warning("notification listener lost its connection", metadata: ["error": "\(error)"])
                    }
                    let pause = backoff
                    backoff = min(backoff * 2, .seconds(5))
                    let deadline = ContinuousClock.now + pause
                    while ContinuousClock.now < deadline && !stopped.withLock({ $0 }) {
                        usleep(50_000)
                    }
                }
            }
        }
    }

    /// Stops listening (within about half a second) and closes the connection.
    public func stop() {
        stopped.withLock { $0 = true }
        thread.stop()
    }
}
