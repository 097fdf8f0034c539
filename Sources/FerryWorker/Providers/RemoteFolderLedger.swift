import FerryStore
import Foundation

/// Creates each remote folder once across the whole fleet, for providers whose services allow many folders of one
/// name in a folder (paths are not unique there, so two workers creating `/Backup/2025/` at once would make two).
/// Coordinated through the store (``WorkerStore/claimRemoteFolder(scope:path:owner:staleAfter:)``); within one
/// process, concurrent asks for one folder share one answer. Given to providers as
/// ``ProviderEnvironment/folders``.
public actor RemoteFolderLedger {
    /// `nil`: this process is the whole fleet (tests of handlers without a store).
    let store: (any WorkerStore)?
    /// Who holds claims made here: unique per process.
    let owner: String
    /// A claim whose holder stopped answering is taken over after this.
    let staleAfter: Duration
    private var known: [String: String] = [:]
    private var pending: [String: Task<String, any Error>] = [:]
    /// Ids kept in memory at most (a cache: the store has them all).
    static let maxKnown = 50_000

    public init(store: (any WorkerStore)?, owner: String = "\(ProcessInfo.processInfo.hostName)/\(getpid())/\(UUID().uuidString.prefix(8))", staleAfter: Duration = .seconds(30)) {
        self.store = store
        self.owner = String(owner.prefix(200))
        self.staleAfter = staleAfter
    }

    /// The id of the folder `path` in the account space `scope` (`PROVIDER:ACCOUNT`). Answers the recorded id;
    /// otherwise exactly one caller fleet-wide runs `find` (looks for a folder of that name in its parent, which
    /// covers a creator that crashed before recording) and then `create` when `find` answers `nil`; the others
    /// wait for the recorded id.
    public func folderID(
        scope: String, path: String, find: @escaping @Sendable () async throws -> String?,
        create: @escaping @Sendable () async throws -> String
    ) async throws -> String {
        let key = scope + "\u{0}" + path
        if let id = known[key] { return id }
        if let running = pending[key] { return try await running.value }
        let task = Task { [store, owner, staleAfter] in
            try await Self.resolve(store: store, owner: owner, staleAfter: staleAfter, scope: scope, path: path, find: find, create: create)
        }
        pending[key] = task
        defer { pending[key] = nil }
        let id = try await task.value
        if known.count >= Self.maxKnown { known.removeAll(keepingCapacity: true) }
        known[key] = id
        return id
    }

    /// Forgets a folder the service says is gone (deleted by a person), here and in the store.
    public func forget(scope: String, path: String, id: String) async throws {
        let key = scope + "\u{0}" + path
        if known[key] == id { known[key] = nil }
        try await store?.forgetRemoteFolder(scope: scope, path: path, id: id)
    }

    private static func resolve(
        store: (any WorkerStore)?, owner: String, staleAfter: Duration, scope: String, path: String,
        find: @Sendable () async throws -> String?, create: @Sendable () async throws -> String
    ) async throws -> String {
        guard let store else { return try await findOrCreate(find, create) }
        var pause = Duration.milliseconds(10)
        while true {
            switch try await store.claimRemoteFolder(scope: scope, path: path, owner: owner, staleAfter: staleAfter) {
            case .known(let id):
                return id
            case .claimed:
                let id = try await findOrCreate(find, create)
                return try await store.recordRemoteFolder(scope: scope, path: path, id: id) ?? id
            case .busy:
                // Another worker is creating it: its id is a request or two away.
                try await Task.sleep(for: pause)
                pause = min(pause * 2, .milliseconds(500))
            }
        }
    }

    private static func findOrCreate(
        _ find: @Sendable () async throws -> String?, _ create: @Sendable () async throws -> String
    ) async throws -> String {
        if let found = try await find() { return found }
        return try await create()
    }
}
