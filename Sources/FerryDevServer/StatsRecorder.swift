import Synchronization

/// Thread-safe accumulation of ``DevServerStats``.
final class StatsRecorder: Sendable {
    private let stats = Mutex(DevServerStats())

    func snapshot() -> DevServerStats { stats.withLock { $0 } }

    func reset() { stats.withLock { $0 = DevServerStats() } }

    /// Applies one change under the lock.
    func record(_ change: (inout DevServerStats) -> Void) {
        stats.withLock { change(&$0) }
    }
}
