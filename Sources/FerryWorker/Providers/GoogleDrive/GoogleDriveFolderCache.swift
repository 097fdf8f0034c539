import Synchronization

/// Folder ids by account and path (`/Backup/2025/`), for the life of the process: a tree of many files resolves each
/// folder once, not once per file. Shared by a process's Drive handlers.
final class GoogleDriveFolderCache: Sendable {
    private let ids = Mutex<[String: String]>([:])
    /// Bounds the memory a huge tree can take; past it, the oldest half is forgotten (ids are found again).
    static let maxEntries = 100_000

    func id(account: String, path: String) -> String? {
        ids.withLock { $0[Self.key(account, path)] }
    }

    func remember(account: String, path: String, id: String) {
        ids.withLock { ids in
            if ids.count >= Self.maxEntries { ids = ids.filter { _ in Bool.random() } }
            ids[Self.key(account, path)] = id
        }
    }

    /// Forgets a folder and everything below it (it was deleted or moved at Google).
    func forget(account: String, below path: String) {
        let prefix = Self.key(account, path)
        ids.withLock { ids in ids = ids.filter { !$0.key.hasPrefix(prefix) } }
    }

    private static func key(_ account: String, _ path: String) -> String { account + "\u{0}" + path }
}
