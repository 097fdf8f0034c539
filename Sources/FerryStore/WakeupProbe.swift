import Synchronization

/// Whether a LISTEN connection hears what is sent through the pool: counts the listener's connections and the
/// newest one whose test notification came back (`FerryStore.wakeups`).
final class WakeupProbe: Sendable {
    private let state = Mutex((opened: 0, heard: 0))

    /// A fresh listening connection; returns its number.
    func opened() -> Int {
        state.withLock { state in
            state.opened += 1
            return state.opened
        }
    }

    /// The test notification arrived on the current connection.
    func heard() {
        state.withLock { $0.heard = $0.opened }
    }

    /// True once connection `generation` heard its probe, or was replaced (its successor probes anew).
    func isSettled(_ generation: Int) -> Bool {
        state.withLock { $0.heard >= generation || $0.opened > generation }
    }

    /// True when connection `generation` is still the current one and has not heard its probe.
    func isUnheard(_ generation: Int) -> Bool {
        state.withLock { $0.heard < generation && $0.opened == generation }
    }
}
