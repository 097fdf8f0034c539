import Foundation
import Logging
import Postgres

extension FerryStore: WorkerStore {
    /// How long the listener's test announcement may take to come back before announcements count as unheard.
    static let wakeupProbeTimeout: Duration = .seconds(5)

    /// LISTEN on `ferry_jobs` and `ferry_cancel` through a connection of its own (with the client's settings),
    /// reconnecting with backoff; a reconnect is announced as `.missed`. The connection closes when the consumer
    /// stops iterating.
    ///
    /// Behind a transaction-mode pooler (PgBouncer) LISTEN succeeds but notifications never come: the server
    /// connection that listened went back to the pool. So after every (re)connect the store sends a NOTIFY on a
    /// channel of its own through the pool, as any producer would, and announces `.unheard` when it does not
    /// come back within `wakeupProbeTimeout`.
    public func wakeups(logger: Logger) -> AsyncStream<WorkerWakeup> {
        let (stream, continuation) = AsyncStream.makeStream(of: WorkerWakeup.self)
        let probe = "ferry_probe_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let probes = WakeupProbe()
        let listener = PostgresListener(
            configuration: client.configuration, channels: ["ferry_jobs", "ferry_cancel", probe], logger: logger)
        let client = self.client
        listener.start(listening: {
            let generation = probes.opened()
            Task {
                do {
                    _ = try await client.withConnection { try $0.query("SELECT pg_notify($1, '')", [probe]) }
                } catch {
                    // The pool is unreachable: the listener's next reconnect probes again.
                    return
                }
                let deadline = ContinuousClock.now + Self.wakeupProbeTimeout
                while ContinuousClock.now < deadline {
                    if probes.isSettled(generation) { return }
                    try? await Task.sleep(for: .milliseconds(50))
                }
                if probes.isUnheard(generation) {
                    continuation.yield(.unheard)
                }
            }
        }) { note in
            switch note.channel {
            case "ferry_jobs": continuation.yield(note.payload == "schedule" ? .schedules : .jobs)
            case "ferry_cancel": continuation.yield(.cancel)
            case probe: probes.heard()
            default: continuation.yield(.missed)
            }
        }
        continuation.onTermination = { _ in listener.stop() }
        return stream
    }

    /// Folds pending counter deltas (`ProjectionStore.compactCounters()`) and rolls finished jobs into the trends
    /// (`rollUpTrends()`, after the fold: both are housekeeping off the claim and outcome path).
    public func compactCounters() async throws -> Int {
        let folded = try await projection.compactCounters()
        try await rollUpTrends()
        return folded
    }
}
