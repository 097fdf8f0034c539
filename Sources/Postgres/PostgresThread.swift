import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A dedicated OS thread that runs submitted blocking work in order.
///
/// libpq calls block; running them on Swift's cooperative pool (two threads on a 2-core machine) would stall
/// every task. Each pooled connection owns one of these threads and its handle is only touched there.
final class PostgresThread: @unchecked Sendable {
    // Guarded by `condition`.
    private var queue: [@Sendable () -> Void] = []
    private var stopping = false
    private let condition = NSCondition()
    let name: String

    /// Marks connection threads, so code (and tests) can check where they run.
    private static let marker: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// True when called on one of the dedicated connection threads.
    static var isCurrent: Bool { pthread_getspecific(marker) != nil }

    init(name: String) {
        self.name = name
        _ = Self.marker
        let context = Unmanaged.passRetained(self).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, 1 << 20)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let status = pthread_create(&thread, &attributes, { context in
            // The retained reference is released when the loop ends.
            let owner = Unmanaged<PostgresThread>.fromOpaque(context!).takeRetainedValue()
            pthread_setspecific(PostgresThread.marker, context)
            owner.run()
            return nil
        }, context)
        precondition(status == 0, "could not start a PostgreSQL connection thread (pthread_create: \(status))")
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
