import FerryCore
import Foundation
import Hummingbird

/// Content-host upload routes. Bodies stream straight to disk; the content hash is computed
/// on the way, so no upload is ever held in memory.
extension DevServerResponder {
    /// Streams the request body into the file at `path`, starting at `offset`. Feeds `hasher`
    /// (whole-file hash) and, when asked, returns the hash of just this body.
    func receiveBody(
        _ request: Request, path: String, offset: Int64, hasher: inout ContentHasher, chunkHash: Bool, sessionID: String?
    ) async throws -> (bytes: Int64, chunkHash: String?) {
        let file = try DiskFile.openForWriting(path)
        let limit = backend.configuration.maxRequestBodyBytes
        var chunkHasher = chunkHash ? ContentHasher() : nil
        var written: Int64 = 0
        let faults = backend.faults
        var throttle = BandwidthThrottle(rate: { faults.configuration.uploadBytesPerSecond })
        backend.stats.record { stats in
            stats.uploadBodiesInFlight += 1
            stats.uploadBodiesPeak = max(stats.uploadBodiesPeak, stats.uploadBodiesInFlight)
        }
        defer { backend.stats.record { $0.uploadBodiesInFlight -= 1 } }
        for try await buffer in request.body {
            _ = throttle.nextPieceSize()  // picks up a changed rate
            let count = Int64(buffer.readableBytes)
            backend.stats.record { stats in
                stats.bytesReceived += count
                if let sessionID { stats.bytesReceivedPerSession[sessionID, default: 0] += count }
            }
            guard written + count <= limit else { throw BodyTooLarge() }
            try file.write(buffer, at: offset + written)
            hasher.update(buffer)
            chunkHasher?.update(buffer)
            written += count
            // Reading no further until the pace allows is what slows the sender down.
            try await throttle.didSend(buffer.readableBytes)
        }
        return (written, chunkHasher?.finalize())
    }

    /// Cuts a session file back after a refused or interrupted chunk, so a chunk is applied
    /// entirely or not at all.
    private func rollBack(_ path: String, to offset: Int64) {
        try? DiskFile.openForWriting(path).truncate(to: offset)
    }

    /// Undoes a refused or interrupted write to a session: its file cut back to `offset`, the session released.
    private func undoWrite(_ session: UploadSession, to offset: Int64) {
        rollBack(session.filePath, to: offset)
        backend.files.abortWrite(sessionID: session.id)
    }

    /// Receives the request's body into `session`'s file at `offset`; when that fails the write is undone, and a
    /// body over the limit is answered with `tooLarge`.
    private func receive(
        _ request: Request, into session: UploadSession, at offset: Int64, hasher: inout ContentHasher, chunkHash: Bool,
        tooLarge: @autoclosure () -> DropboxError
    ) async throws -> (bytes: Int64, chunkHash: String?) {
        do {
            return try await receiveBody(request, path: session.filePath, offset: offset, hasher: &hasher, chunkHash: chunkHash, sessionID: session.id)
        } catch {
            undoWrite(session, to: offset)
            if error is BodyTooLarge { throw tooLarge() }
            throw error
        }
    }

    /// The `corrupt_commit` fault: the committed file's first byte changes, and so does its hash.
    private func corrupted(_ entry: FileEntry, account: Account) -> FileEntry {
        backend.stats.record { $0.faultsInjected["corrupt_commit", default: 0] += 1 }
        return backend.files.corruptFirstByte(account: account.name, entry: entry) ?? entry
    }

    private func recordCommit(_ entry: FileEntry, written: Bool) {
        guard written else { return }
        backend.stats.record { stats in
            stats.filesCommitted += 1
            stats.commitsPerPath[entry.pathLower, default: 0] += 1
        }
    }

    private func lookupFailure(_ failure: SessionLookupFailure) -> DropboxError {
        .routeError(summary: failure.summary, failure.json)
    }

    private func finishFailure(_ failure: FinishFailure) -> DropboxError {
        .routeError(summary: failure.summary, failure.json)
    }

    // MARK: files/upload

    func upload(_ account: Account, request: Request, contention: Bool, corrupt: Bool = false) async throws -> Response {
        let route = Endpoint.upload.rawValue
        try checkUploadContentType(request, route: route)
        let arg = try requireObject(try contentArgument(request, route: route), route: route, known: ArgumentFields.upload)
        let expectedHash = try optionalContentHash(arg, route: route)
        // Dropbox reports the implicit session behind a simple upload in UploadWriteFailed.
        let sessionID = "pid_upload_session:" + RandomToken.make(bytes: 24)
        func uploadError(_ failure: WriteFailure) -> DropboxError {
            .routeError(summary: "path/" + failure.summary, .object([
                ".tag": .string("path"), "reason": failure.json, "upload_session_id": .string(sessionID),
            ]))
        }
        let (parsed, problem) = try CommitInfo.parse(arg, route: route, known: ArgumentFields.upload)
        guard let info = parsed else { throw uploadError(WriteFailure(problem ?? .malformed)) }
        if contention {
            recordContention()
            throw uploadError(.tooManyWriteOperations)
        }
        let temporary = backend.files.temporaryDirectory + "/" + RandomToken.make(bytes: 16)
        defer { try? FileManager.default.removeItem(atPath: temporary) }
        var hasher = ContentHasher()
        let received: Int64
        do {
            received = try await receiveBody(request, path: temporary, offset: 0, hasher: &hasher, chunkHash: false, sessionID: nil).bytes
        } catch is BodyTooLarge {
            throw DropboxError.routeError(summary: "payload_too_large", .tag("payload_too_large"))
        }
        let hash = hasher.finalize()
        if let expectedHash, expectedHash != hash {
            throw DropboxError.routeError(summary: "content_hash_mismatch", .tag("content_hash_mismatch"))
        }
        try await enterCommit(account)
        backend.stats.record { $0.singleCommits += 1 }
        if failsByPath(info) { throw uploadError(.insufficientSpace) }
        do throws(WriteFailure) {
            var (entry, written) = try backend.files.commit(account: account.name, info: info, source: temporary, size: received, contentHash: hash)
            if corrupt && written { entry = corrupted(entry, account: account) }
            recordCommit(entry, written: written)
            return .json(entry.metadata(tagged: false))
        } catch {
            throw uploadError(error)
        }
    }

    // MARK: files/upload_session/start

    func uploadSessionStart(_ account: Account, request: Request) async throws -> Response {
        let route = Endpoint.uploadSessionStart.rawValue
        try checkUploadContentType(request, route: route)
        let arg = try requireObject(try contentArgument(request, route: route), route: route, known: ArgumentFields.uploadSessionStart)
        let close = try optionalBool(arg, "close", route: route)
        var concurrent = false
        if let type = arg["session_type"], !type.isNull {
            switch try ArgumentFields.unionTag(type, route: route, field: "session_type") {
            case "sequential": break
            case "concurrent": concurrent = true
            default:
                throw DropboxError.badRequest(route: route, "session_type: unknown tag")
            }
        }
        if concurrent && close {
            throw DropboxError.routeError(summary: "concurrent_session_close_not_allowed", .tag("concurrent_session_close_not_allowed"))
        }
        let expectedHash = try optionalContentHash(arg, route: route)
        let session = try backend.files.startSession(account: account.name, concurrent: concurrent)
        backend.stats.record { $0.sessionsStarted += 1 }
        var hasher = ContentHasher()
        do throws(SessionLookupFailure) {
            _ = try backend.files.beginWrite(account: account.name, sessionID: session.id, offset: 0, forFinish: false)
        } catch {
            throw lookupFailure(error)
        }
        let received = try await receive(
            request, into: session, at: 0, hasher: &hasher, chunkHash: false,
            tooLarge: DropboxError.routeError(summary: "payload_too_large", .tag("payload_too_large")))
        if let expectedHash, expectedHash != hasher.finalize() {
            undoWrite(session, to: 0)
            throw DropboxError.routeError(summary: "content_hash_mismatch", .tag("content_hash_mismatch"))
        }
        if concurrent && received.bytes > 0 {
            undoWrite(session, to: 0)
            throw DropboxError.routeError(summary: "concurrent_session_data_not_allowed", .tag("concurrent_session_data_not_allowed"))
        }
        backend.files.endWrite(sessionID: session.id, newOffset: received.bytes, hasher: hasher, close: close)
        return .json(.object(["session_id": .string(session.id)]))
    }

    // MARK: files/upload_session/append_v2 (and the deprecated append)

    /// `keepPartial` is the `partial_chunk` fault: the whole chunk is read but only its first half is kept,
    /// as when a connection breaks mid-chunk; the caller then closes the connection without an answer.
    func uploadSessionAppend(_ account: Account, request: Request, endpoint: Endpoint, keepPartial: Bool) async throws -> Response {
        let route = endpoint.rawValue
        try checkUploadContentType(request, route: route)
        let isV1 = endpoint == .uploadSessionAppend
        let arg = try requireObject(try contentArgument(request, route: route), route: route,
                                    known: isV1 ? ArgumentFields.uploadSessionCursor : ArgumentFields.uploadSessionAppend)
        let cursor: (id: String, offset: Int64)
        let close: Bool
        if isV1 {
            cursor = try sessionCursor(arg, route: route, field: "")
            close = false
        } else {
            cursor = try sessionCursor(arg["cursor"], route: route, field: "cursor")
            close = try optionalBool(arg, "close", route: route)
        }
        let expectedHash = isV1 ? nil : try optionalContentHash(arg, route: route)
        backend.stats.record { $0.appendOffsetsPerSession[cursor.id, default: []].append(cursor.offset) }
        if !isV1 && backend.files.isConcurrentSession(cursor.id) {
            return try await concurrentAppend(account, request: request, cursor: cursor, close: close, expectedHash: expectedHash, keepPartial: keepPartial)
        }
        let session: UploadSession
        do throws(SessionLookupFailure) {
            session = try backend.files.beginWrite(account: account.name, sessionID: cursor.id, offset: cursor.offset, forFinish: false)
        } catch {
            throw lookupFailure(error)
        }
        var hasher = session.hasher
        let received = try await receive(
            request, into: session, at: cursor.offset, hasher: &hasher, chunkHash: expectedHash != nil, tooLarge: lookupFailure(.payloadTooLarge))
        if let expectedHash, expectedHash != received.chunkHash {
            undoWrite(session, to: cursor.offset)
            throw lookupFailure(.contentHashMismatch)
        }
        if keepPartial {
            let kept = received.bytes / 2
            rollBack(session.filePath, to: cursor.offset + kept)
            var keptHasher = session.hasher
            do {
                try hashStored(session.filePath, from: cursor.offset, count: kept, into: &keptHasher)
            } catch {
                undoWrite(session, to: cursor.offset)
                throw error
            }
            // Not closed: the chunk that asked for it did not arrive whole.
            backend.files.endWrite(sessionID: session.id, newOffset: cursor.offset + kept, hasher: keptHasher, close: false)
            return .json(.null)
        }
        backend.files.endWrite(sessionID: session.id, newOffset: cursor.offset + received.bytes, hasher: hasher, close: close)
        return .json(.null)
    }

    /// `append_v2` to a concurrent session: any multiple of 4 MiB, in any order, in parallel. Only the closing chunk
    /// may have another size. The session is hashed once it is closed and complete. A `partial_chunk` fault records
    /// nothing (the chunk did not arrive whole; the client sends it again).
    private func concurrentAppend(
        _ account: Account, request: Request, cursor: (id: String, offset: Int64), close: Bool, expectedHash: String?, keepPartial: Bool
    ) async throws -> Response {
        let session: UploadSession
        do throws(SessionLookupFailure) {
            session = try backend.files.checkConcurrentWrite(account: account.name, sessionID: cursor.id, offset: cursor.offset)
        } catch {
            // Read (and drop) the refused chunk, so the connection is ready for the client's next request.
            for try await _ in request.body {}
            throw lookupFailure(error)
        }
        var unused = ContentHasher()
        let received: (bytes: Int64, chunkHash: String?)
        backend.stats.record { stats in
            stats.concurrentAppendsInFlight += 1
            stats.concurrentAppendsPeak = max(stats.concurrentAppendsPeak, stats.concurrentAppendsInFlight)
        }
        defer { backend.stats.record { $0.concurrentAppendsInFlight -= 1 } }
        do {
            received = try await receiveBody(request, path: session.filePath, offset: cursor.offset, hasher: &unused,
                                             chunkHash: expectedHash != nil, sessionID: session.id)
        } catch is BodyTooLarge {
            throw lookupFailure(.payloadTooLarge)
        }
        if let expectedHash, expectedHash != received.chunkHash { throw lookupFailure(.contentHashMismatch) }
        if !close && received.bytes % FileStore.concurrentChunkGranularity != 0 { throw lookupFailure(.concurrentSessionInvalidDataSize) }
        if keepPartial { return .json(.null) }
        let complete: Bool
        do throws(SessionLookupFailure) {
            complete = try backend.files.endConcurrentWrite(sessionID: session.id, offset: cursor.offset, length: received.bytes, close: close)
        } catch {
            throw lookupFailure(error)
        }
        if complete {
            let (hash, size) = try DiskFile.contentHash(ofFileAt: session.filePath)
            backend.files.completeConcurrentSession(session.id, hash: hash, size: size)
        }
        return .json(.null)
    }

    /// Feeds `count` bytes of the file at `path`, from `offset`, to `hasher` (a kept part of a chunk, read back).
    private func hashStored(_ path: String, from offset: Int64, count: Int64, into hasher: inout ContentHasher) throws {
        let file = try DiskFile.openForReading(path)
        var done: Int64 = 0
        while done < count {
            let piece = try file.read(at: offset + done, count: Int(min(count - done, 1 << 20)))
            guard piece.readableBytes > 0 else { throw DevServerError("session file shorter than its offset") }
            hasher.update(piece)
            done += Int64(piece.readableBytes)
        }
    }

    // MARK: files/upload_session/finish

    func uploadSessionFinish(_ account: Account, request: Request, contention: Bool, corrupt: Bool = false) async throws -> Response {
        let route = Endpoint.uploadSessionFinish.rawValue
        try checkUploadContentType(request, route: route)
        let arg = try requireObject(try contentArgument(request, route: route), route: route, known: ArgumentFields.uploadSessionFinish)
        let cursor = try sessionCursor(arg["cursor"], route: route, field: "cursor")
        guard let commit = arg["commit"] else { throw DropboxError.badRequest(route: route, "missing required field 'commit'") }
        let (parsed, problem) = try CommitInfo.parse(commit, route: route, field: "commit")
        let expectedHash = try optionalContentHash(arg, route: route)
        guard let info = parsed else { throw finishFailure(.write(WriteFailure(problem ?? .malformed))) }
        if contention {
            recordContention()
            throw finishFailure(.tooManyWriteOperations)
        }
        try await enterCommit(account)
        backend.stats.record { $0.singleCommits += 1 }
        if failsByPath(info) { throw finishFailure(.write(.insufficientSpace)) }
        let session: UploadSession
        do throws(SessionLookupFailure) {
            session = try backend.files.beginWrite(account: account.name, sessionID: cursor.id, offset: cursor.offset, forFinish: true)
        } catch {
            throw finishFailure(.lookup(error))
        }
        var hasher = session.hasher
        let received = try await receive(
            request, into: session, at: cursor.offset, hasher: &hasher, chunkHash: expectedHash != nil, tooLarge: finishFailure(.lookup(.payloadTooLarge)))
        if received.bytes > 0 && session.closed {
            undoWrite(session, to: cursor.offset)
            throw finishFailure(.lookup(.closed))
        }
        if let expectedHash, expectedHash != received.chunkHash {
            undoWrite(session, to: cursor.offset)
            throw finishFailure(.lookup(.contentHashMismatch))
        }
        do throws(WriteFailure) {
            var (entry, written) = try backend.files.finishSession(account: account.name, session: session,
                                                                   newOffset: cursor.offset + received.bytes, hasher: hasher, info: info)
            if corrupt && written { entry = corrupted(entry, account: account) }
            recordCommit(entry, written: written)
            return .json(entry.metadata(tagged: false))
        } catch {
            throw finishFailure(.write(error))
        }
    }

    // MARK: files/upload_session/finish_batch_v2 (and finish_batch + check)

    /// Commits up to 1,000 closed sessions; each entry succeeds or fails on its own.
    /// The namespace lock is taken once for the whole call; `corrupt` (the `corrupt_commit` fault) changes every file
    /// the call writes.
    func finishBatch(_ account: Account, _ argument: JSONValue, route: String, contention: Bool, corrupt: Bool = false) async throws -> JSONValue {
        let arg = try requireObject(argument, route: route, known: ArgumentFields.uploadSessionFinishBatch)
        guard let entries = arg["entries"]?.arrayValue else { throw DropboxError.badRequest(route: route, "missing required field 'entries'") }
        guard entries.count <= 1000 else { throw DropboxError.badRequest(route: route, "entries: list has more than 1000 items") }
        var parsed: [(cursor: (id: String, offset: Int64), info: CommitInfo?, problem: DropboxPath.Problem?)] = []
        for (index, entry) in entries.enumerated() {
            let entry = try requireObject(entry, route: route, field: "entries[\(index)]", known: ArgumentFields.uploadSessionFinish)
            let cursor = try sessionCursor(entry["cursor"], route: route, field: "entries[\(index)].cursor")
            guard let commit = entry["commit"] else { throw DropboxError.badRequest(route: route, "missing required field 'entries[\(index)].commit'") }
            let (info, problem) = try CommitInfo.parse(commit, route: route, field: "entries[\(index)].commit")
            parsed.append((cursor, info, problem))
        }
        if !contention && !parsed.isEmpty {
            try await enterCommit(account)
            backend.stats.record { $0.finishBatchEntries.append(parsed.count) }
        }
        var results: [JSONValue] = []
        for item in parsed {
            let outcome: Result<FileEntry, FinishFailure>
            if let info = item.info {
                if contention || backend.faults.decideBatchEntryContention(route: route) {
                    recordContention()
                    outcome = .failure(.tooManyWriteOperations)
                } else if failsByPath(info) {
                    outcome = .failure(.write(.insufficientSpace))
                } else {
                    do throws(FinishFailure) {
                        var (entry, written) = try backend.files.finishClosedSession(account: account.name, sessionID: item.cursor.id,
                                                                                     offset: item.cursor.offset, info: info)
                        if corrupt && written { entry = corrupted(entry, account: account) }
                        recordCommit(entry, written: written)
                        outcome = .success(entry)
                    } catch {
                        outcome = .failure(error)
                    }
                }
            } else {
                outcome = .failure(.write(WriteFailure(item.problem ?? .malformed)))
            }
            switch outcome {
            case .success(let entry):
                guard case .object(let fields) = entry.metadata(tagged: false) else { continue }
                results.append(.object(fields.merging([".tag": .string("success")]) { $1 }))
            case .failure(let failure):
                results.append(.object([".tag": .string("failure"), "failure": failure.json]))
            }
        }
        return .object(["entries": .array(results)])
    }

    func finishBatchCheck(_ argument: JSONValue, route: String) throws(DropboxError) -> JSONValue {
        let arg = try requireObject(argument, route: route, known: ArgumentFields.asyncJob)
        let jobID = try requiredString(arg, "async_job_id", route: route)
        guard let result = backend.files.batchJob(jobID), case .object(let fields) = result else {
            throw .routeError(summary: "invalid_async_job_id", .tag("invalid_async_job_id"))
        }
        return .object(fields.merging([".tag": .string("complete")]) { $1 })
    }
}
