import AsyncHTTPClient
import FerryCore
import FerryOneDrive
import FerryProviders
import FerryStore
import Foundation
import NIOCore

/// One attempt of one upload (or copy) to OneDrive (see ``OneDriveUploadHandler``).
struct OneDriveUpload: Sendable {
    let handler: OneDriveUploadHandler
    let job: ClaimedJob
    let context: JobContext
    let caller: OneDriveCaller
    let source: UploadBytes
    let size: Int64
    /// QuickXorHash (base64) of the bytes; a copy's source may state none: then the size is checked alone.
    let quickXor: String?
    /// The remote file path (`/Backup/a.jpg`).
    let path: String
    /// The file's modification time (ISO 8601), kept as `fileSystemInfo.lastModifiedDateTime` by sessions.
    let modified: String?
    let details: OneDriveUploadDetails
    /// The version of a copy's source: a recorded session is resumed only for the same version.
    var sourceVersion: String? = nil

    enum Decision {
        case done(OneDriveItem)
        case leftAlone(OneDriveItem)
        case write(OneDriveConflictBehavior)
    }

    func run() async throws -> JobResult {
        let recorded = OneDriveUploadCursor(session: job.session, size: size).flatMap { $0.version == sourceVersion ? $0 : nil }
        if let recorded, recorded.uploadURL != nil, let item = try await resume(recorded) { return try await verified(item) }
        let conflict: OneDriveConflictBehavior
        if recorded?.replace == true {
            context.logger.notice("replacing a file an earlier attempt stored with other content")
            conflict = .replace
        } else {
            switch try await decide() {
            case .done(let item):
                context.logger.info("a file with the same content is there already; not uploaded again")
                return .unchanged(["id": .string(item.id), "quick_xor": .string(item.quickXorHash ?? ""), "size": .int(size)])
            case .leftAlone(let item):
                return ExistingTarget.leftAlone(["id": .string(item.id), "size": .int(item.size ?? 0)], logger: context.logger)
            case .write(let chosen):
                conflict = chosen
            }
        }
        let item = size <= handler.simpleLimit ? try await simple(conflict) : try await session(conflict)
        return try await verified(item)
    }

    /// What an item at the path means for this upload, as the mode and the `existing` policy say.
    func decide() async throws -> Decision {
        let mode = details.mode
        let policy = ExistingTarget.policy(of: job)
        let looks = ExistingTarget.looks(job, ifChanged: details.ifChanged == true) || mode == nil || mode == .add
        // Rename and overwrite need no look: Graph applies them to whatever is there.
        guard looks else { return .write(mode == .rename ? .rename : .replace) }
        let existing: OneDriveItem?
        do {
            existing = try await caller.call("looking at \(path)") { [path] client, token in try await client.item(path: path, accessToken: token) }
        } catch let error as OneDriveError where error.code == .notFound {
            existing = nil
        } catch let error as OneDriveError {
            throw error.jobFailure(doing: "looking at \(path)")
        }
        guard let existing else { return .write(mode == .rename ? .rename : mode == .overwrite ? .replace : .fail) }
        if existing.isFolder {
            throw JobFailure.permanent("destination_exists", "a folder is at \(path): the upload would replace it")
        }
        if policy == .ignore { return .leftAlone(existing) }
        let same = existing.size == size && quickXor != nil && existing.quickXorHash == quickXor
        if same, mode != .rename || policy == .immutable { return .done(existing) }
        if policy == .immutable { throw ExistingTarget.immutableConflict(job.destination) }
        switch mode {
        case .overwrite: return .write(.replace)
        case .rename: return .write(.rename)
        case .add: break
        case nil: if details.ifChanged == true { return .write(.replace) }
        }
        throw JobFailure.permanent(
            "destination_exists",
            "a file with other content is at \(path) (id \(existing.id)); enqueue with --option mode=overwrite to replace it or mode=rename to keep both")
    }

    /// One `PUT …:/content`, streamed from disk (a copy's bytes are read first).
    private func simple(_ conflict: OneDriveConflictBehavior) async throws -> OneDriveItem {
        let (size, handler, context, source, path) = (self.size, self.handler, self.context, self.source, self.path)
        var caller = self.caller
        // `fail` is not idempotent (a lost answer, then a second PUT, meets its own file): the next attempt looks first.
        if conflict != .replace { caller.transientRetries = 0 }
        return try await JobSpan.run("ferry.upload.commit", ["ferry.bytes": .int64(size), "ferry.upload.single": .bool(true)]) { [caller] in
            try await caller.job("uploading \(path)") { client, token in
                let body = try await source.body(0, size, pieceSize: handler.pieceSize, context: context)
                // The file is stored by this request: not after the lease may have lapsed (another worker may run it).
                try context.ensureLease(before: "storing the file")
                return try await client.uploadSmall(path: path, body: body, conflict: conflict, accessToken: token)
            }
        }
    }

    /// The stored file must hold the local bytes: size and QuickXorHash. A wrong one is replaced by the next attempt.
    private func verified(_ item: OneDriveItem) async throws -> JobResult {
        guard item.size == size, quickXor == nil || item.quickXorHash == quickXor else {
            let stored = "\(item.size.map(String.init) ?? "?") bytes with quickXorHash \(item.quickXorHash ?? "none")"
            let cursor = OneDriveUploadCursor(uploadURL: nil, offset: 0, size: size, replace: true, version: sourceVersion)
            try await context.reportProgress(bytesDone: 0, bytesTotal: size, session: cursor.json, force: true)
            throw JobFailure.retryable(
                "checksum_mismatch", "OneDrive stored \(stored) at \(path), the file has \(size) bytes with quickXorHash \(quickXor ?? "unknown"); the next attempt replaces it")
        }
        return JobResult(bytes: size, details: .object([
            "id": .string(item.id), "name": .string(item.name), "quick_xor": .string(item.quickXorHash ?? quickXor ?? ""), "size": .int(size),
            "version": item.version.map(JSONValue.string) ?? .null,
        ]))
    }
}
