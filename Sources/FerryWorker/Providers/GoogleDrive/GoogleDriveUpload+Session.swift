import AsyncHTTPClient
import FerryCore
import FerryGoogleDrive
import Foundation

/// Resumable sessions: chunks of ``GoogleDriveUploadHandler/chunkSize`` streamed from disk, each accepted chunk
/// recorded with the session URI; a broken chunk is followed by a status query (Drive may have kept part of it); an
/// expired session is replaced by a new one from byte 0.
extension GoogleDriveUpload {
    /// Sessions one attempt starts before it gives up (each after the one before expired).
    static let maximumSessions = 3
    /// Status queries in a row after failed chunks before the attempt gives up.
    static let maximumChunkFailures = 4

    /// Resumes the recorded session: the file when it completed already, `nil` when it expired (start anew).
    func resume(_ recorded: GoogleDriveUploadCursor) async throws -> GoogleDriveFile? {
        guard let uri = recorded.session else { return nil }
        let status: GoogleDriveUploadStatus
        do {
            status = try await caller.call("asking the upload session where it stands") { [size] client, token in
                try await client.uploadStatus(session: uri, total: size, accessToken: token)
            }
        } catch let error as GoogleDriveError where error.code == .sessionExpired || error.code == .badRequest {
            context.logger.notice("the recorded upload session is gone; starting a new one", metadata: ["reason": "\(error.code.rawValue)"])
            return nil
        } catch let error as GoogleDriveError {
            throw error.jobFailure(doing: "asking the upload session where it stands")
        }
        switch status {
        case .complete(let file):
            context.logger.info("the recorded upload session completed already")
            return file
        case .incomplete(let received):
            context.logger.info("resuming the recorded upload session", metadata: ["offset": "\(received)"])
            if let file = try await send(uri, from: received, fileID: recorded.fileID) { return file }
            context.logger.notice("the recorded upload session expired; starting a new one from byte 0")
            return nil
        }
    }

    /// Sends the file through a new session and returns the stored file.
    func session(_ target: Target) async throws -> GoogleDriveFile {
        for _ in 0..<Self.maximumSessions {
            let uri = try await start(target)
            if let file = try await send(uri, from: 0, fileID: request(for: target).1) { return file }
            context.logger.notice("the upload session expired; starting a new one from byte 0")
        }
        throw JobFailure.retryable("gdrive_session_expired", "\(Self.maximumSessions) upload sessions in a row expired before the upload completed")
    }

    /// A new session, recorded before any byte goes up.
    private func start(_ target: Target) async throws -> String {
        let (metadata, fileID) = request(for: target)
        let uri = try await caller.job("starting an upload session") { [size] client, token in
            try await client.startResumableSession(metadata, fileID: fileID, size: size, accessToken: token)
        }
        try await record(uri, 0, fileID: fileID)
        return uri
    }

    /// Chunks from `offset` to the end; `nil` when the session expired.
    private func send(_ uri: String, from offset: Int64, fileID: String?) async throws -> GoogleDriveFile? {
        var offset = offset
        var failures = 0
        while true {
            try context.checkCancellation()
            let end = min(size, offset + Int64(handler.chunkSize))
            let status: GoogleDriveUploadStatus
            do {
                status = try await JobSpan.run("ferry.upload.chunk", ["ferry.offset": .int64(offset), "ferry.bytes": .int64(end - offset)]) {
                    try await chunk(uri, offset, end)
                }
                failures = 0
            } catch let error as GoogleDriveError where error.code == .sessionExpired {
                return nil
            } catch let error as GoogleDriveError where error.isRetryable && error.code != .rateLimited && failures < Self.maximumChunkFailures {
                // Part of the chunk may be there: ask before sending again.
                failures += 1
                context.logger.notice("a chunk failed; asking the session where it stands", metadata: ["error": "\(error)"])
                status = try await statusAfterFailure(uri)
            } catch let error as GoogleDriveError {
                throw error.jobFailure(doing: "sending bytes \(offset)–\(end)")
            }
            switch status {
            case .complete(let file):
                return file
            case .incomplete(let received):
                guard received <= size else { throw JobFailure.retryable("gdrive_bad_response", "the session holds more bytes than the file has") }
                offset = received
                try await record(uri, offset, fileID: fileID)
            }
        }
    }

    /// One chunk, streamed from disk (no retries inside: a failed chunk is followed by a status query).
    private func chunk(_ uri: String, _ start: Int64, _ end: Int64) async throws -> GoogleDriveUploadStatus {
        var once = caller
        once.transientRetries = 0
        let (source, handler, context, size) = (self.source, self.handler, self.context, self.size)
        return try await once.call("sending bytes \(start)–\(end)") { client, token in
            // The chunk that reaches the end finalizes the session: Drive creates the file then.
            if end == size { try context.ensureLease(before: "sending the last chunk") }
            let body = try await source.body(start, end, pieceSize: handler.pieceSize, context: context)
            return try await client.uploadChunk(session: uri, body: body, start: start, end: end, total: size, accessToken: token)
        }
    }

    private func statusAfterFailure(_ uri: String) async throws -> GoogleDriveUploadStatus {
        do {
            return try await caller.call("asking the upload session where it stands") { [size] client, token in
                try await client.uploadStatus(session: uri, total: size, accessToken: token)
            }
        } catch let error as GoogleDriveError where error.code == .sessionExpired {
            return .incomplete(received: 0)
        } catch let error as GoogleDriveError {
            throw error.jobFailure(doing: "asking the upload session where it stands")
        }
    }

    /// Records the session and what it holds: another worker resumes there.
    private func record(_ uri: String, _ offset: Int64, fileID: String?) async throws {
        var cursor = GoogleDriveUploadCursor(session: uri, offset: offset, size: size, fileID: fileID, replaceID: nil)
        cursor.version = sourceVersion
        try await context.reportProgress(bytesDone: offset, bytesTotal: size, session: cursor.json)
    }
}
