import Foundation
import Synchronization

/// Folder ids by account and path (`/Backup/2025/`), for the life of the process: a tree of many files resolves each
/// folder once, not once per file. Shared by a process's Drive handlers.
final class GoogleDriveFolderCache: Sendable {
    private let ids = Mutex<[String: String]>([:])
    /// Folders this process created, and when (by the monotonic clock, and by the wall clock to compare with a
    /// job's enqueue time): empty then, so a first upload into one needs no look for a file of its name (names
    /// within one enqueue are unique; a retry looks).
    private let created = Mutex<[String: (at: ContinuousClock.Instant, wall: Date)]>([:])
    /// How long a folder this process made counts as holding only what this fleet's jobs put there.
    static let freshFor: Duration = .seconds(600)
    /// Bounds the memory a huge tree can take; past it, the oldest half is forgotten (ids are found again).
    static let maxEntries = 100_000

    func id(account: String, path: String) -> String? {
        ids.withLock { $0[Self.key(account, path)] }
    }

    /// Records that this process created the folder at `path` just now.
    func markCreated(account: String, path: String) {
        created.withLock { created in
            if created.count >= Self.maxEntries { created.removeAll(keepingCapacity: true) }
            created[Self.key(account, path)] = (.now, Date())
        }
    }

    /// Whether this process created the folder at `path` within ``freshFor``, after a job enqueued at `enqueued`:
    /// then only that job's own enqueue (whose names are unique) can have put files there. A job enqueued after
    /// the folder was made (a tree run again, a file changed since) may meet a file of its name and must look.
    func isFresh(account: String, path: String, forJobEnqueuedAt enqueued: Date) -> Bool {
        guard let made = created.withLock({ $0[Self.key(account, path)] }) else { return false }
        return ContinuousClock.now - made.at < Self.freshFor && enqueued < made.wall
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
        created.withLock { created in created = created.filter { !$0.key.hasPrefix(prefix) } }
    }

    private static func key(_ account: String, _ path: String) -> String { account + "\u{0}" + path }
}
