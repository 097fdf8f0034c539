import AsyncHTTPClient
import FerryCore
import FerryGoogleDrive
import FerryProviders
import FerryStore
import Foundation
import NIOCore
import Postgres

/// One attempt of one upload to Drive (see ``GoogleDriveUploadHandler``).
struct GoogleDriveUpload: Sendable {
    let handler: GoogleDriveUploadHandler
    let job: ClaimedJob
    let context: JobContext
    let caller: GoogleDriveCaller
    let source: UploadBytes
    let size: Int64
    /// Lowercase hex MD5 of the bytes (a copy's source may state none: then the size is checked alone).
    let md5: String?
    /// The version of a copy's source: a recorded session is resumed only for the same version.
    var sourceVersion: String? = nil
    /// Name and modification time of the file to store.
    let metadata: GoogleDriveNewFile
    let details: GoogleDriveUploadDetails
    let resolver: GoogleDrivePathResolver
    /// The folder's names from the top of the Drive.
    let folder: [String]

    /// Where this attempt writes: a new file in a folder, or a new revision of a file.
    enum Target: Sendable {
        case create(parentID: String)
        case revision(fileID: String)
    }

    func run() async throws -> JobResult {
        let recorded = GoogleDriveUploadCursor(session: job.session, size: size).flatMap { $0.version == sourceVersion ? $0 : nil }
        if let recorded, recorded.session != nil, let file = try await resume(recorded) { return try await verified(file) }
        let target: Target
        if let replace = recorded?.replaceID {
            context.logger.notice("replacing a file an earlier attempt stored with other content")
            target = .revision(fileID: replace)
        } else {
            guard let parentID = try await resolver.folderID(folder, create: true) else {
                throw JobFailure.retryable("gdrive_folder", "the destination folder could not be made")
            }
            switch try await decide(parentID: parentID) {
            case .done(let file): return unchanged(file)
            case .leftAlone(let file):
                return ExistingTarget.leftAlone(["id": .string(file.id), "size": .int(file.size ?? 0)], logger: context.logger)
            case .write(let chosen): target = chosen
            }
        }
        let file: GoogleDriveFile
        do {
            file = size <= handler.multipartLimit ? try await multipart(target) : try await session(target)
        } catch let failure as JobFailure where failure.code == "not_found" {
            guard case .create = target else { throw failure }
            // The folder (or one above it) was deleted in Drive since its id was recorded: forget the ids, here
            // and fleet-wide, so the next attempt finds or makes the folders again.
            try await resolver.forgetFolders(folder)
            throw JobFailure.retryable("gdrive_folder_gone", "the destination folder is no longer in the Drive; the next attempt makes it again")
        }
        return try await verified(file)
    }

    enum Decision {
        /// The same content is there.
        case done(GoogleDriveFile)
        /// A file is there and `existing=ignore` keeps it.
        case leftAlone(GoogleDriveFile)
        case write(Target)
    }

    /// What a file of the same name in the folder means for this upload (Drive would add a second one).
    private func decide(parentID: String) async throws -> Decision {
        // A folder this process just made, after this job was enqueued, holds no file of this name on a first
        // attempt: skip the look (one request of two for a small file). A retry looks, so a create whose answer was
        // lost is found, not made twice; so does a job enqueued later (a tree run again may bring a changed file).
        if job.attempt <= 1, !folder.isEmpty,
            resolver.cache.isFresh(
                account: resolver.account, path: "/" + folder.joined(separator: "/") + "/", forJobEnqueuedAt: job.enqueuedAt.date)
        {
            return .write(.create(parentID: parentID))
        }
        let present = try await resolver.files(named: metadata.name, in: parentID).filter { !$0.isGoogleDocument }
        let mode = details.mode ?? .add
        let policy = ExistingTarget.policy(of: job)
        if policy == .ignore, let existing = present.first { return .leftAlone(existing) }
        if let md5, let same = present.first(where: { $0.md5Checksum == md5 && $0.size == size }),
            mode == .add || details.ifChanged == true || policy == .immutable
        {
            return .done(same)
        }
        guard let existing = present.first else { return .write(.create(parentID: parentID)) }
        if policy == .immutable { throw ExistingTarget.immutableConflict(job.destination) }
        // An upload that compares (if_changed: tree uploads and copies by default) replaces a changed file with a
        // new revision of it unless a mode was asked for; never a second file of the name beside it.
        guard mode == .overwrite || (details.mode == nil && details.ifChanged == true) else {
            throw JobFailure.permanent(
                "destination_exists",
                "a file named \(metadata.name) with other content is already in the folder (id \(existing.id)); enqueue with --option mode=overwrite to store a new revision of it")
        }
        return .write(.revision(fileID: existing.id))
    }

    /// One multipart request: the metadata and the bytes, streamed from disk.
    private func multipart(_ target: Target) async throws -> GoogleDriveFile {
        let (metadata, fileID) = request(for: target)
        let (size, handler, context) = (self.size, self.handler, self.context)
        // A copy's bytes are read once, before the request (at most the multipart limit); a file's are streamed.
        var held: ByteBuffer?
        if case .copy(let copy) = source {
            held = try await copy.read(0..<size, context: context)
            context.noteBytes(size)
        }
        // A create is not idempotent (Drive takes a second file of the name): a failed one ends the attempt, whose
        // retry looks for the file first, rather than being sent again at once.
        var caller = self.caller
        if fileID == nil { caller.transientRetries = 0 }
        return try await JobSpan.run("ferry.upload.commit", ["ferry.bytes": .int64(size), "ferry.upload.single": .bool(true)]) { [held, caller] in
            try await caller.job("uploading \(metadata.name)") { client, token in
                // Creates the file (or its revision) in one request: fenced like a commit, on every try.
                try context.ensureLease(before: "storing the file")
                if let held {
                    return try await client.multipartUpload(
                        metadata, fileID: fileID, content: ByteBufferSequence(buffers: [held]), contentLength: size, accessToken: token)
                }
                guard case .file(let file) = source else { throw JobFailure.permanent("bad_source", "no bytes to upload") }
                let stream = FileByteStream(file: file, start: 0, end: size, pieceSize: handler.pieceSize, bandwidth: context.bandwidth) { offset, buffer in
                    context.noteBytes(offset + Int64(buffer.readableBytes))
                }
                return try await client.multipartUpload(metadata, fileID: fileID, content: stream, contentLength: size, accessToken: token)
            }
        }
    }

    /// The metadata and the file id (for a revision) of a request for `target`.
    func request(for target: Target) -> (GoogleDriveNewFile, String?) {
        switch target {
        case .create(let parentID):
            var metadata = self.metadata
            metadata.parentID = parentID
            return (metadata, nil)
        case .revision(let fileID):
            return (metadata, fileID)
        }
    }

    /// The stored file must hold the local bytes: size and MD5. A wrong one is replaced by the next attempt.
    private func verified(_ file: GoogleDriveFile) async throws -> JobResult {
        guard file.size == size, md5 == nil || file.md5Checksum == md5 else {
            let stored = "\(file.size.map(String.init) ?? "?") bytes with MD5 \(file.md5Checksum ?? "none")"
            // Recorded so that the next attempt writes a revision of this file instead of finding a conflict.
            var cursor = GoogleDriveUploadCursor(session: nil, offset: 0, size: size, fileID: nil, replaceID: file.id)
            cursor.version = sourceVersion
            try await context.reportProgress(bytesDone: 0, bytesTotal: cursor.size, session: cursor.json, force: true)
            throw JobFailure.retryable(
                "checksum_mismatch", "Google Drive stored \(stored) as \(file.id), the file has \(size) bytes with MD5 \(md5 ?? "unknown"); the next attempt replaces it")
        }
        return JobResult(bytes: size, details: .object([
            "id": .string(file.id), "name": .string(file.name), "md5": .string(file.md5Checksum ?? md5 ?? ""), "size": .int(size),
            "revision": file.headRevisionId.map(JSONValue.string) ?? .null,
        ]))
    }

    private func unchanged(_ file: GoogleDriveFile) -> JobResult {
        context.logger.info("a file with the same content is there already; not uploaded again")
        return .unchanged(["id": .string(file.id), "md5": .string(file.md5Checksum ?? ""), "size": .int(size)])
    }
}
