import FerryStore
import Foundation

/// Remote folders created once, as definition 520 keeps them.
extension MemoryWorkerStore {
    public func claimRemoteFolder(scope: String, path: String, owner: String, staleAfter: Duration) async throws -> RemoteFolderClaim {
        let key = scope + "\u{0}" + path
        return state.withLock { state in
            let now = state.now
            guard let found = state.remoteFolders[key] else {
                state.remoteFolders[key] = MemoryRemoteFolder(id: nil, owner: owner, claimedAt: now)
                return .claimed
            }
            if let id = found.id { return .known(id) }
            if found.owner == owner || found.claimedAt < now.addingTimeInterval(-Self.seconds(staleAfter)) {
                state.remoteFolders[key] = MemoryRemoteFolder(id: nil, owner: owner, claimedAt: now)
                return .claimed
            }
            return .busy
        }
    }

    public func recordRemoteFolder(scope: String, path: String, id: String) async throws -> String? {
        let key = scope + "\u{0}" + path
        return state.withLock { state in
            guard var found = state.remoteFolders[key] else { return nil }
            if found.id == nil { found.id = id }
            state.remoteFolders[key] = found
            return found.id
        }
    }

    public func forgetRemoteFolder(scope: String, path: String, id: String) async throws {
        let key = scope + "\u{0}" + path
        state.withLock { state in
            if state.remoteFolders[key]?.id == id { state.remoteFolders[key] = nil }
        }
    }
}
