import Foundation
import Logging
import Postgres
import Synchronization

/// One database listener shared by every browser: notifications on Ferry's channels are fanned out to all
/// subscribers (Server-Sent Event streams), so viewers cost no database connections.
///
/// Each subscriber has a small buffer keeping the newest notes: a slow browser loses intermediate notes, never
/// the fact that something changed (the page re-reads what it shows).
final class NotificationHub: Sendable {
    /// `ferry_jobs` (a job became claimable), `ferry_cancel` (a cancel was requested), `ferry_batch` (a batch
    /// completed or reopened; payload: the batch).
    static let channels = ["ferry_jobs", "ferry_cancel", "ferry_batch"]

    private let listener: PostgresListener
    private let logger: Logger
    private let subscribers = Mutex<[UUID: AsyncStream<HubEvent>.Continuation]>([:])
    private let lastChangeAt = Mutex<ContinuousClock.Instant?>(nil)

    init(configuration: PostgresConfiguration, logger: Logger) {
        listener = PostgresListener(configuration: configuration, channels: Self.channels, logger: logger)
        self.logger = logger
    }

    /// Starts listening. On a hot standby, which refuses LISTEN, pages still move: the dashboard's once-a-second
    /// read of the event log's head (`Dashboard.headInterval`) announces every change; the log says so once.
    func start() {
        let logger = self.logger
        listener.start(refused: { _ in
            logger.warning(
                "the database is a hot standby: LISTEN is refused there [SQLSTATE 25006] and no notification reaches it; live pages follow the event log read once a second instead, and show what the primary did after the replication lag")
        }) { [weak self] note in
            self?.publish(HubEvent(channel: note.channel, payload: note.payload))
        }
    }

    func stop() {
        listener.stop()
        let all = subscribers.withLock { subscribers in
            defer { subscribers.removeAll() }
            return Array(subscribers.values)
        }
        for continuation in all { continuation.finish() }
    }

    var subscriberCount: Int { subscribers.withLock { $0.count } }

    /// A stream of notifications until the consumer stops iterating (the browser went away).
    func subscribe() -> AsyncStream<HubEvent> {
        let id = UUID()
        let (stream, continuation) = AsyncStream.makeStream(of: HubEvent.self, bufferingPolicy: .bufferingNewest(8))
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
        }
        subscribers.withLock { $0[id] = continuation }
        return stream
    }

    /// When the last change (not a keep-alive) was heard: a page showing values read before it may be stale.
    var lastChange: ContinuousClock.Instant? { lastChangeAt.withLock { $0 } }

    private func publish(_ note: HubEvent) {
        if note.channel != Self.keepAliveChannel { lastChangeAt.withLock { $0 = .now } }
        let all = subscribers.withLock { Array($0.values) }
        for continuation in all { continuation.yield(note) }
    }
}

extension NotificationHub {
    /// The pseudo-channel of keep-alive ticks.
    static let keepAliveChannel = "keepalive"

    /// Announces a change the database did not notify (the dashboard's own event-head reads).
    func publishChange(channel: String, payload: String) {
        publish(HubEvent(channel: channel, payload: payload))
    }

    func keepAlive() {
        publish(HubEvent(channel: Self.keepAliveChannel, payload: ""))
    }
}
