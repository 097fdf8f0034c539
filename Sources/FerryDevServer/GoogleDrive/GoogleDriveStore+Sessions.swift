import FerryCore
import Foundation

/// Resumable upload sessions: started with the metadata, fed in chunks in order, committed by the last chunk.
extension GoogleDriveStore {
    /// What a PUT to a session may do.
    enum SessionAccess: Sendable {
        /// Write the body at `session.received` (the session is now busy).
        case write(GoogleDriveSession)
        /// Nothing to write now: answer 308 with what the session holds.
        case incomplete(received: Int64)
        /// The upload is done: answer the file again.
        case completed(GoogleDriveItem)
    }

    /// Starts a session for a new file (`fileID` nil) or a new revision of `fileID`; returns its upload id.
    func startSession(account: String, fileID: String?, metadata: GoogleDriveMetadata, total: Int64?) throws(GoogleAPIError) -> String {
        try state.withLock { state throws(GoogleAPIError) -> String in
            if let fileID {
                guard let item = Self.item(in: state, account, fileID), item.content != nil else { throw .notFound(fileID) }
            } else {
                _ = try Self.folder(in: state, account, metadata.parents?.first ?? "root")
            }
            let id = RandomToken.make(bytes: 36)
            let path = sessionsDirectory + "/" + RandomToken.make(bytes: 16)
            guard FileManager.default.createFile(atPath: path, contents: Data()) else {
                throw .drive(.internalServerError, reason: "backendError", "The session could not be started.")
            }
            state.sessions[id] = GoogleDriveSession(
                id: id, account: account, fileID: fileID, metadata: metadata, dataPath: path, createdAt: clock.now, total: total)
            state.stats.sessionsStarted += 1
            return id
        }
    }

    /// Claims the session for a PUT of `start…` (`nil` for a status query) of `total` bytes. An unknown or expired
    /// session is 404; a chunk that does not start where the session stands writes nothing (the 308 tells where).
    func accessSession(_ id: String, start: Int64?, total: Int64?) throws(GoogleAPIError) -> SessionAccess {
        try state.withLock { state throws(GoogleAPIError) -> SessionAccess in
            guard var session = state.sessions[id] else { throw Self.sessionGone }
            if start == nil { state.stats.statusQueries += 1 }
            if let done = session.completedItemID {
                guard let item = state.items[done] else { throw Self.sessionGone }
                return .completed(item)
            }
            guard session.createdAt + Self.sessionLifetime > clock.now else {
                Self.expire(&state, id)
                throw Self.sessionGone
            }
            if let total, let known = session.total, total != known {
                throw .badRequest("The total size does not match the size the session was started with.", reason: "invalid")
            }
            guard let start, start == session.received, !session.busy else { return .incomplete(received: session.received) }
            if let total { session.total = total }
            session.busy = true
            state.sessions[id] = session
            state.stats.chunkStartsPerSession[id, default: []].append(start)
            return .write(session)
        }
    }

    /// Releases the session after a PUT, holding `received` bytes now.
    func endChunk(_ id: String, received: Int64) {
        state.withLock { state in
            state.sessions[id]?.received = received
            state.sessions[id]?.busy = false
        }
    }

    /// Commits a session whose every byte arrived: the new file or the new revision.
    func completeSession(_ id: String, content: GoogleStagedContent) throws(GoogleAPIError) -> GoogleDriveItem {
        guard let session = state.withLock({ $0.sessions[id] }) else { throw Self.sessionGone }
        let item: GoogleDriveItem
        do throws(GoogleAPIError) {
            if let fileID = session.fileID {
                item = try updateContent(account: session.account, id: fileID, metadata: session.metadata, content: content)
            } else {
                item = try create(account: session.account, metadata: session.metadata, content: content)
            }
        } catch {
            endChunk(id, received: session.received)
            throw error
        }
        state.withLock { state in
            state.sessions[id]?.completedItemID = item.id
            state.sessions[id]?.busy = false
            state.sessions[id]?.received = content.size
            state.stats.sessionsCompleted += 1
        }
        return item
    }

    /// Expires every session (of `account`, when given) now, as if a week had passed; returns how many.
    func expireSessions(account: String?) -> Int {
        state.withLock { state in
            let ids = state.sessions.values.filter { account == nil || $0.account == account }.map(\.id)
            for id in ids { Self.expire(&state, id) }
            return ids.count
        }
    }

    private static func expire(_ state: inout State, _ id: String) {
        guard let session = state.sessions.removeValue(forKey: id) else { return }
        try? FileManager.default.removeItem(atPath: session.dataPath)
        state.stats.sessionsExpired += 1
    }

    /// Google answers a session it no longer has with 404.
    static let sessionGone = GoogleAPIError.drive(.notFound, reason: "notFound", "The upload session was not found or has expired.")
}
