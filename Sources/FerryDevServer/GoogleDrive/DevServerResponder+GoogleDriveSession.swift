import FerryCore
import Foundation
import Hummingbird

/// PUTs to a resumable session URI: chunks (`Content-Range: bytes S-E/T`, other than the last a multiple of
/// 256 KiB), answered `308 Resume Incomplete` with `Range: bytes=0-N` until the last one stores the file; status
/// queries (`bytes */T`); a session that expired or never was is 404. A chunk that breaks off keeps its bytes up to a
/// 256 KiB boundary, as Google may, so a client must ask before resuming.
extension DevServerResponder {
    static let googleChunkGranularity: Int64 = 256 * 1024

    func googleSessionPut(_ request: Request, uploadID: String, fileID: String?, keepPartial: Bool) async throws -> Response {
        var range: GoogleContentRange
        if let header = request.headers[.contentRange] {
            guard let parsed = GoogleContentRange(header) else {
                throw GoogleAPIError.badRequest("Failed to parse Content-Range header.", reason: "badContent")
            }
            range = parsed
        } else {
            // The whole upload in one PUT.
            let length = request.headers[.contentLength].flatMap { Int64($0) } ?? 0
            range = GoogleContentRange(start: length > 0 ? 0 : nil, end: length > 0 ? length - 1 : nil, total: length)
        }
        if let length = range.length, !range.isFinal, length % Self.googleChunkGranularity != 0 {
            throw GoogleAPIError.badRequest("Chunks other than the last must be a multiple of 262144 bytes.", reason: "badContent")
        }
        switch try backend.gdrive.accessSession(uploadID, start: range.start, total: range.total) {
        case .completed(let item):
            try await drain(request)
            return .json(item.json)
        case .incomplete(let received):
            try await drain(request)
            return Self.resumeIncomplete(received)
        case .write(let session):
            return try await googleChunk(request, session: session, range: range, keepPartial: keepPartial)
        }
    }

    private func googleChunk(_ request: Request, session: GoogleDriveSession, range: GoogleContentRange, keepPartial: Bool) async throws -> Response {
        let start = range.start ?? 0
        let expected = range.length ?? 0
        var received: Int64 = 0
        do {
            _ = try await googleReceive(request, into: session.dataPath, at: start, limit: expected) { received += Int64($0.readableBytes) }
            backend.gdrive.record { $0.bytesReceivedPerSession[session.id, default: 0] += received }
        } catch {
            backend.gdrive.record { $0.bytesReceivedPerSession[session.id, default: 0] += received }
            keep(session, start: start, received: error is BodyTooLarge ? 0 : received)
            if error is BodyTooLarge { throw GoogleAPIError.badRequest("The body is longer than its Content-Range.", reason: "badContent") }
            throw error
        }
        guard received == expected else {
            keep(session, start: start, received: 0)
            throw GoogleAPIError.badRequest("The body is shorter than its Content-Range.", reason: "badContent")
        }
        if keepPartial {
            // The partial_chunk fault: half the chunk stays, then the connection drops.
            keep(session, start: start, received: received / 2)
            return Self.resumeIncomplete(start + received / 2)
        }
        guard range.isFinal else {
            backend.gdrive.endChunk(session.id, received: start + received)
            return Self.resumeIncomplete(start + received)
        }
        let content: GoogleStagedContent
        do {
            content = try GoogleContentDigest.ofFile(at: session.dataPath)
        } catch {
            keep(session, start: start, received: 0)
            throw GoogleAPIError.drive(.internalServerError, reason: "backendError", "The upload could not be read back.")
        }
        return .json(try backend.gdrive.completeSession(session.id, content: content).json)
    }

    /// After a chunk that did not arrive whole: keeps its first bytes up to a 256 KiB boundary, drops the rest.
    private func keep(_ session: GoogleDriveSession, start: Int64, received: Int64) {
        let kept = start + received / Self.googleChunkGranularity * Self.googleChunkGranularity
        try? DiskFile.openForWriting(session.dataPath).truncate(to: kept)
        backend.gdrive.endChunk(session.id, received: kept)
    }

    /// `308 Resume Incomplete`, with `Range: bytes=0-N` once anything arrived (Google sends none before).
    static func resumeIncomplete(_ received: Int64) -> Response {
        var headers = HTTPFields()
        if received > 0 { headers[.range] = "bytes=0-\(received - 1)" }
        headers[.contentLength] = "0"
        return Response(status: HTTPResponse.Status(code: 308, reasonPhrase: "Resume Incomplete"), headers: headers)
    }

    /// Reads and drops a request body that is not used (bounded by the body size limit).
    private func drain(_ request: Request) async throws {
        var total: Int64 = 0
        for try await buffer in request.body {
            total += Int64(buffer.readableBytes)
            if total > backend.configuration.maxRequestBodyBytes { throw BodyTooLarge() }
        }
    }
}
