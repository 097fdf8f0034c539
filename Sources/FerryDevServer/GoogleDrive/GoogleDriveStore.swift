import FerryCore
import Foundation
import Synchronization

/// Every emulated Drive account: its items (files, folders, Google Docs items, by id, with parents), OAuth tokens
/// and codes, and resumable upload sessions.
///
/// Contents live on disk, one file per revision under `storage/.gdrive/blobs`; the index is in memory and every
/// change to it is appended to a journal (`storage/.devserver/gdrive.journal`, compacted at start-up), so a
/// restarted server keeps accounts, tokens and files. Sessions do not survive a restart (as if they expired).
/// Every change happens under one lock; request bodies stream to disk outside it.
final class GoogleDriveStore: Sendable {
    struct State: Sendable {
        /// Account name → id of its root folder.
        var accounts: [String: String] = [:]
        var items: [String: GoogleDriveItem] = [:]
        /// Folder id → ids of the items in it.
        var children: [String: Set<String>] = [:]
        var refreshTokens: [String: String] = [:]
        var accessTokens: [String: AccessToken] = [:]
        var codes: [String: GoogleAuthorizationCode] = [:]
        var sessions: [String: GoogleDriveSession] = [:]
        var sequence: Int64 = 0
        var stats = GoogleDriveStats()
        /// The journal, open for appending (-1 before it is opened).
        var journal: Int32 = -1
    }

    struct AccessToken: Sendable {
        var account: String
        var expiresAt: Double
    }

    let blobsDirectory: String
    let sessionsDirectory: String
    let temporaryDirectory: String
    let journalPath: String
    let clock: DevServerClock
    let state: Mutex<State>

    /// How long a resumable session lives (Google: about a week).
    static let sessionLifetime: Double = 7 * 86_400

    init(storageRoot: String, clock: DevServerClock) throws {
        self.clock = clock
        blobsDirectory = storageRoot + "/.gdrive/blobs"
        sessionsDirectory = storageRoot + "/.gdrive/sessions"
        temporaryDirectory = storageRoot + "/.gdrive/tmp"
        journalPath = storageRoot + "/.devserver/gdrive.journal"
        let fm = FileManager.default
        try? fm.removeItem(atPath: sessionsDirectory)
        try? fm.removeItem(atPath: temporaryDirectory)
        for folder in [blobsDirectory, sessionsDirectory, temporaryDirectory, storageRoot + "/.devserver"] {
            try fm.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        state = Mutex(State())
        try loadJournal()
    }

    /// The id an account's root folder has; `nil` for an unknown account.
    func rootID(of account: String) -> String? { state.withLock { $0.accounts[account] } }

    /// Creates the account (with its root folder) unless it exists; returns the root's id.
    @discardableResult
    func ensureAccount(_ name: String) -> String {
        state.withLock { state in
            if let root = state.accounts[name] { return root }
            let now = Date(timeIntervalSince1970: clock.now)
            state.sequence += 1
            let root = GoogleDriveItem(
                id: Self.newID(), account: name, name: "My Drive", mimeType: GoogleDriveItem.folderMimeType, parents: [],
                sequence: state.sequence, createdTime: now, modifiedTime: now)
            state.accounts[name] = root.id
            state.items[root.id] = root
            Self.append(&state, .object(["op": .string("account"), "name": .string(name), "root": root.record]))
            return root.id
        }
    }

    /// The item `id` of `account` (`root` names the account's root folder).
    func item(_ account: String, _ id: String) -> GoogleDriveItem? {
        state.withLock { Self.item(in: $0, account, id) }
    }

    static func item(in state: State, _ account: String, _ id: String) -> GoogleDriveItem? {
        let resolved = id == "root" ? state.accounts[account] : id
        guard let resolved, let item = state.items[resolved], item.account == account else { return nil }
        return item
    }

    /// Where the bytes of a revision are.
    func blobPath(_ revision: String) -> String { blobsDirectory + "/" + revision }

    /// A fresh temporary file path (same file system as the blobs, so a commit is a rename).
    func temporaryPath() -> String { temporaryDirectory + "/" + RandomToken.make(bytes: 16) }

    /// Drive-like ids: 33 URL-safe characters.
    static func newID() -> String { "1" + RandomToken.make(bytes: 24) }

    func stats() -> GoogleDriveStats { state.withLock { $0.stats } }

    func record(_ change: (inout GoogleDriveStats) -> Void) {
        state.withLock { change(&$0.stats) }
    }

    /// Every item of an account (the control route's view), in creation order.
    func items(of account: String) -> [GoogleDriveItem] {
        state.withLock { state in state.items.values.filter { $0.account == account }.sorted { $0.sequence < $1.sequence } }
    }
}
