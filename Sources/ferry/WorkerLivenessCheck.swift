import FerryStore

/// Tells a waiting user when nothing will move their jobs: no live worker serves a queue that holds some of
/// them (and again when one does). Checked at the first reading and then every `period`, not at every redraw.
struct WorkerLivenessCheck {
    /// A worker is live when its heartbeat is more recent than this (several heartbeat intervals).
    var liveWithin: Duration = .seconds(30)
    var period: Duration = .seconds(15)
    private var lastChecked: ContinuousClock.Instant?
    private var unserved: [String] = []

    /// The message to show when the set of unserved queues changed, else nil. Errors (a role that may not read
    /// `ferry.workers`, a lost connection) skip the check: the wait itself reports what matters.
    mutating func check(_ target: Wait.Target, store: FerryStore, at now: ContinuousClock.Instant) async -> String? {
        if let lastChecked, now - lastChecked < period { return nil }
        lastChecked = now
        let filter: FerryStore.JobFilter =
            switch target {
            case .batch(let name): .batch(name)
            case .job(let id): .job(id)
            }
        guard let queues = try? await store.unservedQueues(filter, liveWithin: liveWithin), queues != unserved else { return nil }
        defer { unserved = queues }
        if queues.isEmpty {
            return "a live worker now serves queue \(unserved.joined(separator: ", "))"
        }
        let list = queues.joined(separator: ",")
        return "warning: no live worker serves queue \(queues.joined(separator: ", ")) (no heartbeat in the last "
            + "\(liveWithin.components.seconds)s): its jobs wait until one starts, e.g. ferry worker --queues \(list)"
    }
}
