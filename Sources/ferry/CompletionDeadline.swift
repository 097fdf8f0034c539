import Synchronization

/// The first of a piece of work and a deadline: the completion answer waits no longer than the user will.
///
/// Unlike a task group, which waits for every child, this returns at the deadline even when the work cannot be
/// cancelled (a libpq connect blocked on its own thread); the work is left to finish, or to end with the process.
final class CompletionDeadline<Value: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<Value, Never>?>

    private init(_ continuation: CheckedContinuation<Value, Never>) {
        self.continuation = Mutex(continuation)
    }

    /// Resumes the waiter once; later calls do nothing.
    private func finish(_ value: Value) {
        continuation.withLock { $0.take() }?.resume(returning: value)
    }

    /// `work`'s value, or `fallback` when `work` takes longer than `limit`.
    static func first(
        within limit: Duration, otherwise fallback: Value, _ work: @escaping @Sendable () async -> Value
    ) async -> Value {
        await withCheckedContinuation { continuation in
            let race = CompletionDeadline(continuation)
            Task { race.finish(await work()) }
            Task {
                try? await Task.sleep(for: limit)
                race.finish(fallback)
            }
        }
    }
}
