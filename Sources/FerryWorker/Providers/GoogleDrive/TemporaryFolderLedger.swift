import Synchronization

/// TEMPORARY, until the shared seam's `ProviderEnvironment.folderID(scope:path:find:create:)` lands (PostgreSQL-wide):
/// the same contract within one process only. Each folder is created at most once per process: the first caller runs
/// `find`, then `create` when it answers nil, while later callers wait for its id. Recorded ids stay for the process's
/// life. Across processes it coordinates nothing (two workers could both create `/Backup/2025/`): that is what the
/// seam's PostgreSQL ledger is for.
final class TemporaryFolderLedger: Sendable {
    static let shared = TemporaryFolderLedger()

    private enum Entry {
        case running(waiters: [CheckedContinuation<String, any Error>])
        case recorded(String)
    }

    private let entries = Mutex<[String: Entry]>([:])

    func folderID(
        scope: String, path: String, find: @Sendable () async throws -> String?, create: @Sendable () async throws -> String
    ) async throws -> String {
        let key = scope + "\u{0}" + path
        enum Role { case recorded(String), runner, waiter }
        let role = entries.withLock { entries -> Role in
            switch entries[key] {
            case .recorded(let id)?: return .recorded(id)
            case .running?: return .waiter
            case nil:
                entries[key] = .running(waiters: [])
                return .runner
            }
        }
        switch role {
        case .recorded(let id):
            return id
        case .waiter:
            return try await withCheckedThrowingContinuation { continuation in
                let now: String? = entries.withLock { entries in
                    switch entries[key] {
                    case .recorded(let id)?: return id
                    case .running(let waiters)?:
                        entries[key] = .running(waiters: waiters + [continuation])
                        return nil
                    case nil:
                        // The runner failed meanwhile: this caller fails too (its job retries).
                        continuation.resume(throwing: CancellationError())
                        return ""
                    }
                }
                if let now, !now.isEmpty { continuation.resume(returning: now) }
            }
        case .runner:
            let result: Result<String, any Error>
            do {
                if let found = try await find() {
                    result = .success(found)
                } else {
                    result = .success(try await create())
                }
            } catch {
                result = .failure(error)
            }
            let waiters = entries.withLock { entries -> [CheckedContinuation<String, any Error>] in
                guard case .running(let waiters)? = entries[key] else { return [] }
                if case .success(let id) = result { entries[key] = .recorded(id) } else { entries.removeValue(forKey: key) }
                return waiters
            }
            for waiter in waiters { waiter.resume(with: result) }
            return try result.get()
        }
    }
}
