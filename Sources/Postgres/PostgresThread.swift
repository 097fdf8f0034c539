import Foundation

/// A dedicated OS thread that runs submitted blocking work in order.
///
/// libpq calls block; running them on Swift's cooperative pool (two threads on a 2-core machine) would stall
/// every task. Each pooled connection owns one of these threads and its handle is only touched there.
final class PostgresThread: @unchecked Sendable {
    // Guarded by `condition`.
    private var queue: [@Sendable () -> Void] = []
    private var stopping = false
    private let condition = NSCondition()

    init(name: String) {
        let thread = Thread { [self] in self.run() }
        thread.name = name
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Queues work. After `stop()`, work is dropped and `false` is returned.
    @discardableResult
    func submit(_ work: @escaping @Sendable () -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !stopping else { return false }
        queue.append(work)
        condition.signal()
        return true
    }

    /// Lets queued work finish, then ends the thread.
    func stop() {
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while queue.isEmpty && !stopping { condition.wait() }
            if queue.isEmpty && stopping {
                condition.unlock()
                return
            }
            let work = queue.removeFirst()
            condition.unlock()
            work()
        }
    }
}
