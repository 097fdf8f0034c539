import AsyncHTTPClient
import FerryCore
import FerryDropbox
import FerryProviders
import FerryStore
import Foundation
import NIOCore
import Tracing

#if canImport(Glibc)
    import Glibc
#endif

/// Uploads a local file to Dropbox: `--to dropbox:ACCOUNT:/path`.
///
/// Files up to one chunk go up in one `upload_session/start` with `close: true`; larger files use an upload session:
/// `start`, then `append_v2` per chunk (the last one closing the session), each accepted chunk recorded as a
/// progress event with the session id and offset (so a new attempt, after a crash or on another machine, resumes
/// the same session there). Once the data is up, the closed session is recorded and its commit joins the account's
/// next `finish_batch_v2` (see ``DropboxCommitBatcher``): a new attempt finds the recorded session and commits it
/// without sending the data again. With batching off (`FERRY_DROPBOX_COMMIT=single`, for comparisons) small files
/// go in one `/2/files/upload` and sessions end with `finish`, serialized per account. Bodies stream from disk in
/// small pieces (memory stays bounded whatever the file size) while Dropbox's `content_hash` is computed; it must
/// match the hash in the server's metadata.
public struct DropboxUploadHandler: JobHandler {
    let tokens: AccountTokenProvider
    /// Bytes per `append_v2` (a multiple of 4 MiB, at most 150 MiB). Files up to this size go up in one request
    /// (`upload_session/start` with `close: true`, or `/2/files/upload` without batching).
    public let chunkSize: Int
    let pieceSize = 256 * 1024
    let commitGate: AccountCommitGate
    /// Commits closed sessions in `finish_batch_v2` calls; nil commits each file on its own.
    let commitBatcher: DropboxCommitBatcher?
    /// How often one attempt retries a commit that hit write contention before deferring the job.
    let contentionRetries = 6
    /// Chunks of one file in flight at once in a concurrent upload session; 1 keeps every session sequential.
    public let parallelAppends: Int
    /// Files of at least this many chunks go up in a concurrent upload session (when ``parallelAppends`` > 1).
    public static let concurrentSessionChunks = 4

    /// Largest chunk Dropbox accepts in one request.
    public static let maximumChunkSize = 150 * 1024 * 1024
    public static let chunkGranularity = 4 * 1024 * 1024

    /// `batching: nil` commits every file on its own (`files/upload`, `upload_session/finish`).
    public init(
        tokens: AccountTokenProvider, chunkSize: Int = 8 * 1024 * 1024, batching: DropboxBatchSettings? = DropboxBatchSettings(),
        parallelAppends: Int = 4, turns: AccountTurns = AccountTurns(store: nil)
    ) {
        self.tokens = tokens
        self.commitGate = AccountCommitGate(turns: turns)
        self.parallelAppends = min(16, max(1, parallelAppends))
        self.commitBatcher = batching.map { DropboxCommitBatcher(tokens: tokens, window: $0.window, maxEntries: $0.maxEntries, turns: turns) }
        let rounded = (chunkSize / Self.chunkGranularity) * Self.chunkGranularity
        self.chunkSize = min(Self.maximumChunkSize, max(Self.chunkGranularity, rounded))
    }

    public var name: String { "dropbox-upload" }


    public func run(_ job: ClaimedJob, context: JobContext) async throws -> JobResult {
        guard let commitBatcher else { return try await upload(job, context: context) }
        let account = try DropboxLocation(job: job.destination).account
        return try await commitBatcher.participating(account) { try await upload(job, context: context) }
    }

    func upload(_ job: ClaimedJob, context: JobContext) async throws -> JobResult {
        let roots = context.localRoots
        // Off the cooperative pool: opening walks the path a component at a time, each an openat that may wait on disk.
        let (expected, source) = try await BlockingIO.run { try SourceExpectation.open(job, roots: roots) }
        return try await transfer(
            job, context: context, source: .file(source), size: expected.size,
            modified: Date(timeIntervalSince1970: Double(expected.modifiedNanoseconds / 1_000_000_000)),
            checkSource: { try expected.check(try source.status(), path: job.source, when: "during the upload") })
    }

    /// The transfer of an upload or a copy (``DropboxCopyWriter``) to the job's destination: the commit (replacing
    /// a revision an earlier attempt stored wrong), the data in one request or a session, and the check of the
    /// stored `content_hash` against the bytes sent (and `expectedContentHash`, a copy's source's).
    ///
    /// `seen` is the revision of a different file a copy's look found at the destination: without an explicit
    /// `mode`, the commit replaces exactly that revision (`update`), as an upload's own look does.
    func transfer(
        _ job: ClaimedJob, context: JobContext, source: Upload.Source, size: Int64, modified: Date, seen: String? = nil,
        expectedContentHash: String? = nil, checkSource: () throws -> Void
    ) async throws -> JobResult {
        let location = try DropboxLocation(job: job.destination)
        let (account, path) = (location.account, location.path)
        let options = try job.details(as: DropboxUploadDetails.self)
        var commit = DropboxCommitInfo(
            path: path, mode: options.mode == .overwrite ? .overwrite : .add,
            autorename: options.autorename == true, clientModified: modified,
            mute: options.mute == true, strictConflict: false)
        let replacing = Self.replacement(in: job.session)
        if let replacing {
            // An earlier attempt committed a file Dropbox stored with other content: replace exactly that
            // revision (a newer one, written by someone else, is a conflict, never overwritten).
            context.logger.notice("replacing a file an earlier attempt committed with the wrong content", metadata: ["rev": "\(replacing.rev)"])
            if commit.mode != .overwrite { commit.mode = .update(replacing.rev) }
            commit.path = replacing.path
            commit.autorename = false
        }
        var upload = Upload(
            handler: self, job: job, context: context, source: source, size: size, commit: commit,
            caller: DropboxCaller(account: account, tokens: tokens, logger: context.logger), account: account,
            replacing: replacing)
        // A copy looked at the destination before (see CopyHandler); an upload looks here.
        var seen = seen
        if case .file = source, replacing == nil, ExistingTarget.looks(job, ifChanged: options.ifChanged == true) {
            switch try await upload.lookBeforeWriting() {
            case .done(let result): return result
            case .write(let rev): seen = rev
            }
        } else if case .file = source, replacing == nil, job.attempt > 1, let done = try await upload.storedByEarlierAttempt() {
            return done
        }
        if let seen, replacing == nil, options.mode == nil {
            // The revision compared is the one replaced: one stored since by another writer is a conflict, never
            // overwritten and never renamed aside.
            upload.commit.mode = .update(seen)
            upload.commit.autorename = false
        }

        let metadata = try await upload.stored(chunkSize: chunkSize, batching: commitBatcher != nil)
        try checkSource()

        // The server's hash is of what it stored; ours of the file. They must agree.
        try await upload.catchUp(to: size)
        let ours = upload.hash.finalize()
        if let expectedContentHash, expectedContentHash != ours {
            throw JobFailure.retryable(
                "content_hash_mismatch", "the bytes read from the source hash to \(ours), the source says \(expectedContentHash); copying again")
        }
        guard metadata.contentHash == ours, metadata.size == size else {
            // Left as is, the wrong file would meet the next attempt's `add` commit as a conflict: remember its
            // revision so that the next attempt replaces it.
            try await context.reportProgress(
                bytesDone: 0, bytesTotal: size,
                session: .object(["replace": .object(["path": .string(metadata.pathDisplay), "rev": .string(metadata.rev)])]), force: true)
            throw JobFailure.retryable(
                "content_hash_mismatch",
                "Dropbox stored \(metadata.size) bytes with content_hash \(metadata.contentHash ?? "none") at \(metadata.pathDisplay) (rev \(metadata.rev)), the file has \(size) bytes with \(ours); the next attempt replaces that revision")
        }
        return JobResult(
            bytes: size,
            details: .object([
                "path": .string(metadata.pathDisplay), "id": .string(metadata.id), "rev": .string(metadata.rev),
                "content_hash": .string(ours), "size": .int(metadata.size),
            ]))
    }
}

extension DropboxUploadHandler {
    /// The file an earlier attempt committed with the wrong content, recorded in the job's session.
    static func replacement(in session: String?) -> (path: String, rev: String)? {
        guard let session, let value = try? JSONValue.parse(session), let replace = value["replace"],
            let path = replace["path"]?.stringValue, let rev = replace["rev"]?.stringValue
        else { return nil }
        return (path, rev)
    }

    /// One attempt of one upload, or of one copy to Dropbox (see ``DropboxCopyWriter``).
    struct Upload: Sendable {
        /// Where the bytes come from.
        enum Source: Sendable {
            /// A local file: chunks stream from disk.
            case file(OwnedFile)
            /// Another provider's file, read a chunk at a time into memory as the chunk goes up.
            case copy(any CopySource)
        }

        let handler: DropboxUploadHandler
        let job: ClaimedJob
        let context: JobContext
        let source: Source
        let size: Int64
        var commit: DropboxCommitInfo
        let caller: DropboxCaller
        let account: String
        /// Kept in every session record of this attempt, so a crash does not forget what to replace.
        let replacing: (path: String, rev: String)?
        let hash = ContentHashCursor()

        /// The bytes `start..<end` as a request body: a file's stream from disk (hashed as it is read), or a copy's
        /// chunk read from its source now (hashed here), so a retried request sends the same bytes again.
        func body(from start: Int64, to end: Int64) async throws -> HTTPClientRequest.Body {
            let (hash, context) = (self.hash, self.context)
            switch source {
            case .file(let file):
                let stream = FileByteStream(
                    file: file, start: start, end: end, pieceSize: handler.pieceSize, bandwidth: context.bandwidth
                ) { offset, buffer in
                    hash.observe(offset, buffer)
                    context.noteBytes(offset + Int64(buffer.readableBytes))
                }
                return .stream(stream, length: .known(end - start))
            case .copy(let remote):
                try await context.throttle(Int(end - start))
                let bytes = try await remote.read(start..<end, context: context)
                hash.observe(start, bytes)
                return .bytes(bytes)
            }
        }

        /// Hashes the source up to `target` where this attempt did not read it (resumed or skipped chunks).
        func catchUp(to target: Int64) async throws {
            switch source {
            case .file(let file):
                try await hash.catchUp(to: target, file: file, pieceSize: handler.pieceSize)
            case .copy(let remote):
                while hash.position < target {
                    let start = hash.position
                    let bytes = try await remote.read(start..<min(target, start + Int64(handler.chunkSize)), context: context)
                    hash.observe(start, bytes)
                }
            }
        }

        /// `/2/files/upload` in one request. A retry after a lost response finds the identical file in place,
        /// which Dropbox accepts as success (not a conflict).
        func single() async throws -> DropboxFileMetadata {
            do {
                return try await JobSpan.run("ferry.upload.commit", ["ferry.bytes": .int64(size), "ferry.upload.single": .bool(true)]) {
                    try await withContentionRetries("uploading") {
                        try await caller.call("uploading") { client, token in
                            // The request both sends and commits: fenced like a commit, on every try.
                            try context.ensureLease(before: "committing")
                            context.metrics.dropboxCommit("upload")
                            return try await client.uploadFile(commit: commit, contentHash: nil, body: try await body(from: 0, to: size), accessToken: token)
                        }
                    }
                }
            } catch let error as DropboxError {
                throw error.jobFailure(doing: "uploading")
            }
        }

        /// A file that fits in one request: `upload_session/start` with `close: true` and all its bytes, the closed
        /// session recorded before its commit joins the account's next batch. A new attempt that finds the session
        /// recorded commits it without sending the data again; one whose session is gone (committed by a call whose
        /// answer was lost, or expired) checks the destination before sending the file again.
        func batched() async throws -> DropboxFileMetadata {
            var recorded = recordedCursor().flatMap { $0.closed && $0.offset == size ? $0.sessionID : nil }
            // A job whose every byte is recorded as up does not count against the account's cap: sending the data
            // again (its session gone) must count again.
            var recordedAsUp = size > 0 && job.bytesDone >= size
            while true {
                let sessionID: String
                if let recorded {
                    context.logger.info("committing the upload session an earlier attempt closed")
                    sessionID = recorded
                } else {
                    if recordedAsUp {
                        try await context.reportProgress(bytesDone: 0, bytesTotal: size, session: replacingSession ?? .null, force: true)
                    }
                    recordedAsUp = true
                    sessionID = try await JobSpan.run("ferry.upload.chunk", ["ferry.offset": .int64(0), "ferry.bytes": .int64(size)]) {
                        try await call("sending the file") { client, token in
                            try await client.uploadSessionStart(close: true, body: try await body(from: 0, to: size), accessToken: token)
                        }
                    }
                    // Before the commit, so that a crash between the two leaves a session the next attempt commits.
                    try await record(sessionID, size, closed: true)
                }
                recorded = nil
                if let metadata = try await commitInBatch(sessionID) { return metadata }
                context.logger.notice("upload session gone before commit; sending the file again")
            }
        }

        /// Commits a closed session through the account's batcher. Nil when the session is gone and the destination
        /// does not hold our content: the data must go up again.
        func commitInBatch(_ sessionID: String) async throws -> DropboxFileMetadata? {
            guard let batcher = handler.commitBatcher else { throw JobFailure.permanent("internal", "batch commit without a batcher") }
            do {
                return try await JobSpan.run("ferry.upload.commit", ["ferry.bytes": .int64(size), "ferry.upload.batch": .bool(true)]) {
                    try await batcher.commit(
                        account: account, sessionID: sessionID, offset: size, commit: commit, context: context)
                }
            } catch let error as DropboxError {
                // An applied commit whose answer was lost leaves the session finished (`not_found`): the file at the
                // destination tells whether it is ours. A session at another offset cannot be committed either.
                guard Self.sessionGone(error) || error.correctOffset != nil else { throw error.jobFailure(doing: "committing") }
                return try await committedEarlier()
            }
        }

        /// An upload session, resumed from the recorded cursor when an earlier attempt left one.
        func session() async throws -> DropboxFileMetadata {
            var cursor = recordedCursor()
            if let cursor {
                context.logger.info("resuming upload session", metadata: ["offset": "\(cursor.offset)"])
            }
            while true {
                if let metadata = try await sessionPass(&cursor) { return metadata }
            }
        }

        /// One upload session from `cursor` (else a new session) to its commit: the file, or nil to go again, from
        /// `cursor` when this pass set it, else from zero in a new session.
        private func sessionPass(_ cursor: inout (sessionID: String, offset: Int64, closed: Bool)?) async throws -> DropboxFileMetadata? {
            let batching = handler.commitBatcher != nil
            let sessionID: String
            var offset: Int64
            var closed = false
            if let cursor {
                (sessionID, offset, closed) = (cursor.sessionID, cursor.offset, cursor.closed && cursor.offset == size)
            } else {
                sessionID = try await call("starting an upload session") { client, token in
                    try await client.uploadSessionStart(close: false, body: .bytes(ByteBuffer()), accessToken: token)
                }
                offset = 0
                try await record(sessionID, offset)
            }
            let resumedClosed = closed
            cursor = nil
            guard let sentClosed = try await sendChunks(sessionID, from: offset, closed: closed, batching: batching) else {
                context.logger.notice("upload session expired or unknown; starting over from zero")
                return nil
            }
            if batching {
                return try await closeAndCommitInBatch(sessionID, closed: sentClosed, resumedClosed: resumedClosed, cursor: &cursor)
            }
            return try await commitSession(sessionID, cursor: &cursor)
        }

        /// Sends the chunks from `start` to the end. The server's correct_offset says what it really holds: skip ahead
        /// or resend the tail. Answers whether the session is closed, or nil when it is gone (start over).
        private func sendChunks(_ sessionID: String, from start: Int64, closed: Bool, batching: Bool) async throws -> Bool? {
            var offset = start
            var closed = closed
            while offset < size {
                try context.checkCancellation()
                let (start, end) = (offset, min(size, offset + Int64(handler.chunkSize)))
                try await catchUp(to: start)
                do {
                    try await JobSpan.run("ferry.upload.chunk", ["ferry.offset": .int64(start), "ferry.bytes": .int64(end - start)]) {
                        try await caller.call("sending bytes \(start)–\(end)") { client, token in
                            // The last chunk closes the session: finish_batch_v2 commits closed sessions only.
                            try await client.uploadSessionAppend(
                                sessionID: sessionID, offset: start, close: batching && end == size, body: try await body(from: start, to: end),
                                accessToken: token)
                        }
                    }
                    offset = end
                    closed = batching && end == size
                } catch let error as DropboxError {
                    if let correct = error.correctOffset, correct <= size {
                        context.logger.notice("server holds a different offset; continuing there", metadata: ["sent_at": "\(start)", "server_offset": "\(correct)"])
                        offset = correct
                    } else if Self.sessionGone(error) {
                        return nil
                    } else {
                        throw error.jobFailure(doing: "sending bytes \(start)–\(end)")
                    }
                }
                if offset < size { try await record(sessionID, offset) }
            }
            return closed
        }

        /// Closes the session if it is still open and commits it through the account's batcher: the file, or nil
        /// to go again (from `cursor` when the server holds fewer bytes).
        private func closeAndCommitInBatch(
            _ sessionID: String, closed: Bool, resumedClosed: Bool, cursor: inout (sessionID: String, offset: Int64, closed: Bool)?
        ) async throws -> DropboxFileMetadata? {
            if !closed {
                // Every byte is up but the session is open (the closing chunk's answer was lost, or an
                // earlier attempt did not batch): close it with an empty append.
                do {
                    try await caller.call("closing the upload session") { client, token in
                        try await client.uploadSessionAppend(sessionID: sessionID, offset: size, close: true, body: .bytes(ByteBuffer()), accessToken: token)
                    }
                } catch let error as DropboxError where error.tags.first == "closed" {
                    // Closed already: the chunk that completed it asked for it.
                } catch let error as DropboxError {
                    return try await afterLostSession(error, sessionID, doing: "closing the upload session", cursor: &cursor)
                }
            }
            if !resumedClosed { try await record(sessionID, size, closed: true) }
            if let metadata = try await commitInBatch(sessionID) { return metadata }
            context.logger.notice("upload session gone before commit; starting over from zero")
            return nil
        }

        /// The commit. A lost answer to an applied finish leaves the session finished: then the file at the
        /// destination tells whether it is ours.
        private func commitSession(
            _ sessionID: String, cursor: inout (sessionID: String, offset: Int64, closed: Bool)?
        ) async throws -> DropboxFileMetadata? {
            do {
                return try await finishSession(sessionID)
            } catch let error as DropboxError {
                return try await afterLostSession(error, sessionID, doing: "committing", cursor: &cursor)
            }
        }

        /// `upload_session/finish` of every byte of the session, serialized per account (commits without
        /// batching), write contention retried; other Dropbox errors come back as they are.
        func finishSession(_ sessionID: String) async throws -> DropboxFileMetadata {
            try await JobSpan.run("ferry.upload.commit", ["ferry.bytes": .int64(size)]) {
                try await handler.commitGate.withLock(account) {
                    try await withContentionRetries("committing") {
                        try await caller.call("committing") { client, token in
                            try context.ensureLease(before: "committing")
                            context.metrics.dropboxCommit("finish")
                            return try await client.uploadSessionFinish(
                                sessionID: sessionID, offset: size, commit: commit, contentHash: nil, body: .bytes(ByteBuffer()),
                                accessToken: token)
                        }
                    }
                }
            }
        }

        /// After a close or commit failed: resume from the server's offset when it holds fewer bytes, else the file
        /// an applied commit left, else nil to start over (the session is gone); any other error fails the attempt.
        private func afterLostSession(
            _ error: DropboxError, _ sessionID: String, doing action: String, cursor: inout (sessionID: String, offset: Int64, closed: Bool)?
        ) async throws -> DropboxFileMetadata? {
            if let correct = error.correctOffset, correct < size {
                cursor = (sessionID, correct, false)
                return nil
            }
            guard Self.sessionGone(error) else { throw error.jobFailure(doing: action) }
            if let existing = try await committedEarlier() { return existing }
            context.logger.notice("upload session gone before commit; starting over from zero")
            return nil
        }

        /// The file already at the destination, if its content is exactly ours.
        func committedEarlier() async throws -> DropboxFileMetadata? {
            guard let metadata = try await destinationFile(), try await holdsOurContent(metadata) else { return nil }
            return metadata
        }

        func call<T: Sendable>(_ action: String, _ body: @Sendable (DropboxClient, String) async throws -> T) async throws -> T {
            do {
                return try await caller.call(action, body)
            } catch let error as DropboxError {
                throw error.jobFailure(doing: action)
            }
        }

        /// Commits retry write contention a few times within the attempt (with jittered waits, at least what
        /// Dropbox asks for), then the job is deferred without consuming an attempt.
        func withContentionRetries<T: Sendable>(_ action: String, _ body: () async throws -> T) async throws -> T {
            var tries = 0
            while true {
                do {
                    return try await body()
                } catch let error as DropboxError where error.isWriteContention && tries < handler.contentionRetries {
                    tries += 1
                    let wait = max(error.retryAfter ?? 0, Double.random(in: 0.05...min(2.0, 0.1 * pow(2, Double(tries)))))
                    context.logger.notice("write contention; retrying the commit", metadata: ["retry_in_s": "\(String(format: "%.2f", wait))"])
                    try await Task.sleep(for: .milliseconds(Int(wait * 1000)))
                } catch let error as DropboxError where !error.isWriteContention && !Self.sessionGone(error) && error.correctOffset == nil {
                    throw error.jobFailure(doing: action)
                }
            }
        }

        /// Records the session cursor; `closed` says every byte is up and the session closed, only its commit left.
        /// What a session record keeps across the sessions of this attempt: the revision to replace, if any.
        var replacingSession: JSONValue? {
            replacing.map { .object(["replace": .object(["path": .string($0.path), "rev": .string($0.rev)])]) }
        }

        func record(_ sessionID: String, _ offset: Int64, closed: Bool = false) async throws {
            var session: [String: JSONValue] = [
                "upload_session_id": .string(sessionID), "offset": .int(offset), "chunk": .int(Int64(handler.chunkSize)),
            ]
            if closed { session["closed"] = .bool(true) }
            if let sourceVersion { session["source_version"] = .string(sourceVersion) }
            if let replacing { session["replace"] = .object(["path": .string(replacing.path), "rev": .string(replacing.rev)]) }
            try await context.reportProgress(bytesDone: offset, bytesTotal: size, session: .object(session))
        }

        /// The version of a copy's source, recorded with the session.
        var sourceVersion: String? {
            if case .copy(let remote) = source { return remote.facts.version }
            return nil
        }

        func recordedCursor() -> (sessionID: String, offset: Int64, closed: Bool)? {
            guard let text = job.session, let session = try? JSONValue.parse(text),
                let id = session["upload_session_id"]?.stringValue, let offset = session["offset"]?.intValue,
                offset >= 0, offset <= size,
                // A copy resumes only a session of the same source version.
                session["source_version"]?.stringValue == sourceVersion
            else { return nil }
            return (id, offset, session["closed"]?.boolValue == true)
        }

        static func sessionGone(_ error: DropboxError) -> Bool {
            error.code == .pathError && (error.tags.contains("not_found") || error.tags.contains("closed"))
                && (error.tags.first == "lookup_failed" || error.tags.first == "not_found" || error.tags.first == "closed")
        }
    }
}
