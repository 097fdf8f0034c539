import FerryCore
import FerryDropbox
import Foundation
import NIOCore

/// Large files in a `session_type: concurrent` upload session: several chunks in flight at once, like the parts of an
/// S3 multipart upload, so one big file uses several connections.
extension DropboxUploadHandler.Upload {
    /// Whether this file goes up in a concurrent session: at least ``DropboxUploadHandler/concurrentSessionChunks``
    /// chunks, more than one append allowed at a time, and no sequential session recorded by an earlier attempt
    /// (that one is resumed as it is).
    var usesConcurrentSession: Bool {
        // A copy reads chunks in order, so that its content hash needs no second read of the source.
        guard case .file = source else { return false }
        return handler.parallelAppends > 1 && size >= Int64(handler.chunkSize) * Int64(DropboxUploadHandler.concurrentSessionChunks)
            && recordedCursor() == nil
    }

    /// Sends the chunks (multiples of 4 MiB, as concurrent sessions require) ``DropboxUploadHandler/parallelAppends``
    /// at a time, recording the set of chunks accepted so far (they finish in any order); the last chunk, sent once
    /// every other one is up, closes the session, which is recorded before the commit. A new attempt resumes the
    /// recorded session and sends only the chunks not recorded; one whose session is gone starts over.
    func concurrentSession() async throws -> DropboxFileMetadata {
        let chunk = Int64(handler.chunkSize)
        let count = Int((size + chunk - 1) / chunk)
        let last = count - 1
        var resumed = recordedConcurrentCursor(chunks: count)
        if let resumed {
            context.logger.info("resuming concurrent upload session", metadata: ["chunks_done": "\(resumed.done.count)", "chunks": "\(count)"])
        }
        while true {
            let sessionID: String
            var done: Set<Int>
            var closed: Bool
            if let resumed {
                (sessionID, done, closed) = resumed
            } else {
                sessionID = try await call("starting a concurrent upload session") { client, token in
                    try await client.uploadSessionStart(close: false, concurrent: true, body: .bytes(ByteBuffer()), accessToken: token)
                }
                (done, closed) = ([], false)
                try await recordConcurrent(sessionID, done: done, closed: false)
            }
            resumed = nil

            do {
                if !closed {
                    var pending = (0..<last).filter { !done.contains($0) }.makeIterator()
                    try await withThrowingTaskGroup(of: Int.self) { group in
                        for _ in 0..<handler.parallelAppends {
                            guard let index = pending.next() else { break }
                            group.addTask { try await append(sessionID, chunk: index, close: false) }
                        }
                        // Recorded one at a time, here: concurrent records could land out of order and forget chunks.
                        for try await finished in group {
                            done.insert(finished)
                            try await recordConcurrent(sessionID, done: done, closed: false)
                            if let index = pending.next() {
                                group.addTask { try await append(sessionID, chunk: index, close: false) }
                            }
                        }
                    }
                    do {
                        _ = try await append(sessionID, chunk: last, close: true)
                    } catch let error as DropboxError where error.tags.first == "closed" {
                        // An earlier attempt's last chunk closed it; every other chunk was recorded before that one went.
                    }
                    done.insert(last)
                    closed = true
                    try await recordConcurrent(sessionID, done: done, closed: true)
                }
            } catch let error as DropboxError {
                guard Self.sessionGone(error) else { throw error.jobFailure(doing: "sending chunks") }
                context.logger.notice("upload session expired or unknown; starting over from zero")
                continue
            }

            let committed = handler.commitBatcher != nil ? try await commitInBatch(sessionID) : try await finish(sessionID)
            if let committed { return committed }
            context.logger.notice("upload session gone before commit; starting over from zero")
        }
    }

    /// One chunk of a concurrent session at its offset; returns its index.
    func append(_ sessionID: String, chunk index: Int, close: Bool) async throws -> Int {
        try context.checkCancellation()
        let start = Int64(index) * Int64(handler.chunkSize)
        let end = min(size, start + Int64(handler.chunkSize))
        try await JobSpan.run("ferry.upload.chunk", ["ferry.offset": .int64(start), "ferry.bytes": .int64(end - start)]) {
            try await caller.call("sending bytes \(start)–\(end)") { client, token in
                try await client.uploadSessionAppend(
                    sessionID: sessionID, offset: start, close: close, body: try await body(from: start, to: end), accessToken: token)
            }
        }
        return index
    }

    /// `upload_session/finish` of a closed session, serialized per account (commits without batching). Nil when the
    /// session is gone and the destination does not hold our content.
    func finish(_ sessionID: String) async throws -> DropboxFileMetadata? {
        do {
            return try await finishSession(sessionID)
        } catch let error as DropboxError {
            guard Self.sessionGone(error) || error.correctOffset != nil else { throw error.jobFailure(doing: "committing") }
            return try await committedEarlier()
        }
    }

    /// Records a concurrent session: its id, the chunk size, the chunks accepted so far and whether it is closed.
    func recordConcurrent(_ sessionID: String, done: Set<Int>, closed: Bool) async throws {
        let chunk = Int64(handler.chunkSize)
        var session: [String: JSONValue] = [
            "upload_session_id": .string(sessionID), "concurrent": .bool(true), "chunk": .int(chunk),
            "chunks_done": .array(done.sorted().map { .int(Int64($0)) }),
        ]
        if closed { session["closed"] = .bool(true) }
        if let replacing { session["replace"] = .object(["path": .string(replacing.path), "rev": .string(replacing.rev)]) }
        let bytes = done.reduce(Int64(0)) { sum, index in sum + min(chunk, size - Int64(index) * chunk) }
        try await context.reportProgress(bytesDone: bytes, bytesTotal: size, session: .object(session))
    }

    /// The concurrent session an earlier attempt recorded, if it used the same chunk size.
    func recordedConcurrentCursor(chunks count: Int) -> (sessionID: String, done: Set<Int>, closed: Bool)? {
        guard let text = job.session, let session = try? JSONValue.parse(text), session["concurrent"]?.boolValue == true,
            let id = session["upload_session_id"]?.stringValue, session["chunk"]?.intValue == Int64(handler.chunkSize),
            let indices = session["chunks_done"]?.arrayValue
        else { return nil }
        let done = Set(indices.compactMap { $0.intValue.map(Int.init) }.filter { (0..<count).contains($0) })
        return (id, done, session["closed"]?.boolValue == true && done.count == count)
    }
}
