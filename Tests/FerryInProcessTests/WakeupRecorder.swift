import FerryStore
import Logging
import Synchronization

/// Collects a store's wake-ups in the background until `stop()` (which ends the stream and its listener).
final class WakeupRecorder: Sendable {
    private let seen = Mutex<[WorkerWakeup]>([])
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(_ store: any WorkerStore) {
        let stream = store.wakeups(logger: Logger(label: "test.wakeups"))
        let task = Task { [self] in
            for await wakeup in stream { self.seen.withLock { $0.append(wakeup) } }
        }
        self.task.withLock { $0 = task }
    }

    /// Forgets what was seen so far.
    func reset() { seen.withLock { $0.removeAll() } }

    /// Waits up to `timeout` for `wakeup`.
    func saw(_ wakeup: WorkerWakeup, within timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if seen.withLock({ $0.contains(wakeup) }) { return true }
            try? await Task.sleep(for: .milliseconds(5))  // a poll interval, as in eventually(...)
        }
        return seen.withLock { $0.contains(wakeup) }
    }

    func stop() { task.withLock { $0?.cancel() } }
}
