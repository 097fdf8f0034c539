import Synchronization

/// Serializes commits (upload session finishes) per account, within a process and then across the fleet: Dropbox
/// answers concurrent commits to one namespace with `too_many_write_operations`, so they are taken one at a time
/// while data transfers stay parallel. A process's own commits queue here first, so it waits for the fleet's turn
/// with one connection per account at most.
final class AccountCommitGate: Sendable {
    private let state = Mutex<[String: [CheckedContinuation<Void, Never>]]>([:])
    let turns: AccountTurns

    init(turns: AccountTurns) {
        self.turns = turns
    }

    /// The fleet-wide turn of `account`'s commits.
    static func scope(_ account: String) -> String { "dropbox-commit:\(account)" }

    func withLock<T: Sendable>(_ account: String, _ body: () async throws -> T) async throws -> T {
        await acquire(account)
        defer { release(account) }
        return try await turns.exclusive(Self.scope(account), body)
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
