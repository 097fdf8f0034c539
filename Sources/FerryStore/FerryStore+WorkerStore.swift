import Logging
import Postgres

extension FerryStore: WorkerStore {
    /// LISTEN on `ferry_jobs` and `ferry_cancel` through a connection of its own (with the client's settings),
    /// reconnecting with backoff; a reconnect is announced as `.missed`. The connection closes when the consumer
    /// stops iterating.
    public func wakeups(logger: Logger) -> AsyncStream<WorkerWakeup> {
        let (stream, continuation) = AsyncStream.makeStream(of: WorkerWakeup.self)
        let listener = PostgresListener(
            configuration: client.configuration, channels: ["ferry_jobs", "ferry_cancel"], logger: logger)
        listener.start { note in
            switch note.channel {
            case "ferry_jobs": continuation.yield(.jobs)
            case "ferry_cancel": continuation.yield(.cancel)
            default: continuation.yield(.missed)
            }
        }
        continuation.onTermination = { _ in listener.stop() }
        return stream
    }

    /// The account's bandwidth limit (`AccountStore.bandwidthLimit(of:)`).
    public func accountBandwidthLimit(_ name: String) async throws -> Int64? {
        try await accounts.bandwidthLimit(of: name)
    }

    /// Folds pending counter deltas (`ProjectionStore.compactCounters()`).
    public func compactCounters() async throws -> Int {
        try await projection.compactCounters()
    }
}
