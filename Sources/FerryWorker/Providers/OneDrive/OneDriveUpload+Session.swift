import AsyncHTTPClient
import FerryCore
import FerryOneDrive
import Foundation

/// Upload sessions: ranges of ``OneDriveUploadHandler/rangeSize`` streamed from disk, each accepted range recorded
/// with the session URL and the next offset Graph expects; a broken range is followed by a status query (Graph says
/// what it still expects); an expired session (404) is replaced by a new one from byte 0.
extension OneDriveUpload {
    static let maximumSessions = 3
    static let maximumRangeFailures = 4

    /// Resumes the recorded session: the item when it completed already, `nil` when it expired (start anew).
    func resume(_ recorded: OneDriveUploadCursor) async throws -> OneDriveItem? {
        guard let url = recorded.uploadURL else { return nil }
        let status: OneDriveUploadSession
        do {
            status = try await caller.call("asking the upload session where it stands") { client, _ in
                try await client.uploadSessionStatus(session: url)
            }
        } catch let error as OneDriveError where error.code == .sessionExpired || error.code == .badRequest || error.code == .notFound {
            context.logger.notice("the recorded upload session is gone; starting a new one", metadata: ["reason": "\(error.code.rawValue)"])
            return nil
        } catch let error as OneDriveError {
            throw error.jobFailure(doing: "asking the upload session where it stands")
        }
        guard let next = status.nextExpected.first, next <= size else {
            context.logger.notice("the recorded upload session expects nothing more; starting a new one")
            return nil
        }
        context.logger.info("resuming the recorded upload session", metadata: ["offset": "\(next)"])
        if let item = try await send(url, from: next) { return item }
        context.logger.notice("the recorded upload session expired; starting a new one from byte 0")
        return nil
    }

    /// Sends the file through a new session and returns the stored item.
    func session(_ conflict: OneDriveConflictBehavior) async throws -> OneDriveItem {
        for _ in 0..<Self.maximumSessions {
            // A stopped attempt makes no new session (its job is another worker's now).
            try context.checkCancellation()
            let (path, modified) = (self.path, self.modified)
            let created = try await caller.job("starting an upload session") { client, token in
                try await client.createUploadSession(path: path, conflict: conflict, modified: modified, accessToken: token)
            }
            try await record(created.uploadURL, created.nextExpected.first ?? 0)
            if let item = try await send(created.uploadURL, from: created.nextExpected.first ?? 0) { return item }
            context.logger.notice("the upload session expired; starting a new one from byte 0")
        }
        throw JobFailure.retryable("onedrive_session_expired", "\(Self.maximumSessions) upload sessions in a row expired before the upload completed")
    }

    /// Ranges from `offset` to the end; `nil` when the session expired.
    private func send(_ url: String, from offset: Int64) async throws -> OneDriveItem? {
        var offset = offset
        var failures = 0
        while true {
            try context.checkCancellation()
            let end = min(size, offset + Int64(handler.rangeSize))
            let status: OneDriveUploadStatus
            do {
                status = try await JobSpan.run("ferry.upload.chunk", ["ferry.offset": .int64(offset), "ferry.bytes": .int64(end - offset)]) {
                    try await range(url, offset, end)
                }
                failures = 0
            } catch let error as OneDriveError where error.code == .sessionExpired {
                return nil
            } catch let error as OneDriveError
                where (error.isRetryable && error.code != .rateLimited || error.code == .rangeNotSatisfiable) && failures < Self.maximumRangeFailures
            {
                // Part of the range may be there (or all of it, its answer lost): ask before sending again.
                failures += 1
                context.logger.notice("a range failed; asking the session where it stands", metadata: ["error": "\(error)"])
                guard let next = try await expected(url) else { return nil }
                status = .incomplete(nextExpected: [next])
            } catch let error as OneDriveError {
                throw error.jobFailure(doing: "sending bytes \(offset)–\(end)")
            }
            switch status {
            case .complete(let item):
                return item
            case .incomplete(let next):
                guard let first = next.first, first <= size else {
                    throw JobFailure.retryable("onedrive_bad_response", "the session expects bytes the file does not have")
                }
                offset = first
                try await record(url, offset)
            }
        }
    }

    /// One range, streamed (no retries inside: a failed range is followed by a status query).
    private func range(_ url: String, _ start: Int64, _ end: Int64) async throws -> OneDriveUploadStatus {
        var once = caller
        once.transientRetries = 0
        let (source, handler, context, size) = (self.source, self.handler, self.context, self.size)
        return try await once.call("sending bytes \(start)–\(end)") { client, _ in
            let body = try await source.body(start, end, pieceSize: handler.pieceSize, context: context)
            // The last range completes the file: not after the lease may have lapsed.
            if end == size { try context.ensureLease(before: "sending the last range") }
            return try await client.uploadRange(session: url, body: body, start: start, end: end, total: size)
        }
    }

    /// The first byte the session still expects; `nil` when it expired.
    private func expected(_ url: String) async throws -> Int64? {
        do {
            return try await caller.call("asking the upload session where it stands") { client, _ in
                try await client.uploadSessionStatus(session: url)
            }.nextExpected.first ?? 0
        } catch let error as OneDriveError where error.code == .sessionExpired {
            return nil
        } catch let error as OneDriveError {
            throw error.jobFailure(doing: "asking the upload session where it stands")
        }
    }

    /// Records the session and where it stands: another worker resumes there.
    private func record(_ url: String, _ offset: Int64) async throws {
        let cursor = OneDriveUploadCursor(uploadURL: url, offset: offset, size: size, version: sourceVersion)
        try await context.reportProgress(bytesDone: offset, bytesTotal: size, session: cursor.json)
    }
}
