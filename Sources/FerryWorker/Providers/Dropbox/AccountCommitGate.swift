import Synchronization

/// Serializes commits (upload session finishes) per account within a process: Dropbox answers concurrent
/// commits to one namespace with `too_many_write_operations`, so they are taken one at a time while data
/// transfers stay parallel.
final class AccountCommitGate: Sendable {
    private let state = Mutex<[String: [CheckedContinuation<Void, Never>]]>([:])

    func withLock<T: Sendable>(_ account: String, _ body: () async throws -> T) async throws -> T {
        await acquire(account)
        defer { release(account) }
        return try await body()
    }

    private func acquire(_ account: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = state.withLock { waiting -> Bool in
                if waiting[account] == nil {
                    waiting[account] = []
                    return true
                }
                waiting[account]!.append(continuation)
                return false
            }
            if granted { continuation.resume() }
        }
    }

    private func release(_ account: String) {
        let next = state.withLock { waiting -> CheckedContinuation<Void, Never>? in
            guard var queue = waiting[account], !queue.isEmpty else {
                waiting[account] = nil
                return nil
            }
            let first = queue.removeFirst()
            waiting[account] = queue
            return first
        }
        next?.resume()
    }
}
