import Foundation

/// What every commit goes through before it applies: the `hold_commits` fault, then the account's namespace lock.
extension DevServerResponder {
    /// Waits while commits are held, then takes the account's namespace lock for
    /// ``FaultConfiguration/namespaceLockMilliseconds`` (once per request, so a `finish_batch_v2` pays it once for
    /// all its entries). Throws 429 `too_many_write_operations` when the lock stays taken as long again.
    func enterCommit(_ account: Account) async throws {
        while backend.faults.configuration.holdCommits {
            try await Task.sleep(for: .milliseconds(20))
        }
        let configuration = backend.faults.configuration
        let hold = configuration.namespaceLockMilliseconds
        guard hold > 0 else { return }
        let acquired = try await backend.namespaceLock.acquire(account.name, hold: .milliseconds(hold), patience: .milliseconds(hold))
        guard acquired else {
            backend.stats.record { stats in
                stats.namespaceLockContention += 1
                stats.rateLimitedResponses += 1
            }
            throw DropboxError.rateLimited(retryAfter: configuration.retryAfterSeconds, reason: "too_many_write_operations")
        }
        // The commit's own time under the lock.
        try await Task.sleep(for: .milliseconds(hold))
    }

    /// The `fail_commit_paths` fault: whether a commit to `info`'s path fails with `insufficient_space`.
    func failsByPath(_ info: CommitInfo) -> Bool {
        guard let patterns = backend.faults.configuration.failCommitPaths, !patterns.isEmpty else { return false }
        let lower = info.path.lower
        return patterns.contains { !$0.isEmpty && lower.contains($0.lowercased()) }
    }
}
