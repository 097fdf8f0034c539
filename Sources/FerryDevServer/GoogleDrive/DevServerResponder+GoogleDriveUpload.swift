import FerryCore
import Foundation
import HTTPTypes
import Hummingbird

/// `/upload/drive/v3/files[/ID]`: `uploadType=media` (bytes only), `multipart` (metadata and bytes in one
/// `multipart/related` body) and `resumable` (a session URI in `Location`). A PATCH with an id stores a new
/// revision of that file. Bodies stream to disk, checksummed on the way.
extension DevServerResponder {
    /// Largest `multipart/related` body, read into memory to split it (Drive means multipart for small files).
    static let googleMultipartLimit = 64 * 1024 * 1024

    func googleUpload(_ account: String, fileID: String?, request: Request, query: [String: String]) async throws -> Response {
        switch query["uploadType"] {
        case "media":
            let staged = try await googleStage(request)
            return .json(try googleStore(account, fileID: fileID, metadata: GoogleDriveMetadata(), content: staged).json)
        case "multipart":
            return try await googleMultipart(account, fileID: fileID, request: request)
        case "resumable":
            let metadata = try GoogleDriveMetadata(body: try await googleBody(request))
            var total: Int64?
            if let text = request.headers[HTTPField.Name("X-Upload-Content-Length")!] {
                guard let value = Int64(text), value >= 0 else { throw GoogleAPIError.badRequest("Invalid X-Upload-Content-Length.", reason: "invalid") }
                total = value
            }
            let id = try backend.gdrive.startSession(account: account, fileID: fileID, metadata: metadata, total: total)
            var location = googleOrigin(request) + "/upload/drive/v3/files"
            if let fileID { location += "/" + FormDecoding.escape(fileID) }
            var headers = HTTPFields()
            headers[.location] = location + "?uploadType=resumable&upload_id=" + id
            headers[.contentLength] = "0"
            return Response(status: .ok, headers: headers)
        default:
            throw GoogleAPIError.badRequest("Invalid uploadType: use media, multipart or resumable.", reason: "invalid")
        }
    }

    private func googleMultipart(_ account: String, fileID: String?, request: Request) async throws -> Response {
        guard let boundary = GoogleMultipartParser.boundary(of: request.headers[.contentType]) else {
            throw GoogleAPIError.badRequest("Expected a multipart/related body with a boundary.", reason: "badContent")
        }
        var request = request
        let body: [UInt8]
        do {
            body = Array(try await request.collectBody(upTo: min(Self.googleMultipartLimit, Int(backend.configuration.maxRequestBodyBytes))).readableBytesView)
        } catch {
            throw GoogleAPIError.drive(.contentTooLarge, reason: "uploadTooLarge", "A multipart upload is limited to \(Self.googleMultipartLimit) bytes: use a resumable upload.")
        }
        backend.gdrive.record { $0.bytesReceived += Int64(body.count) }
        let parts = try GoogleMultipartParser.parts(body, boundary: boundary)
        guard parts.count == 2 else { throw GoogleAPIError.badRequest("Expected two parts: the metadata and the media.", reason: "badContent") }
        var metadata = try GoogleDriveMetadata(body: Array(parts[0].body))
        if metadata.mimeType == nil, let type = parts[1].headers["content-type"] { metadata.mimeType = type }
        let path = backend.gdrive.temporaryPath()
        var digest = GoogleContentDigest()
        parts[1].body.withUnsafeBytes { digest.update($0) }
        guard FileManager.default.createFile(atPath: path, contents: Data(parts[1].body)) else {
            throw GoogleAPIError.drive(.internalServerError, reason: "backendError", "The upload could not be stored.")
        }
        backend.gdrive.record { $0.multipartUploads += 1 }
        let staged = digest.staged(path: path, size: Int64(parts[1].body.count))
        return .json(try googleStore(account, fileID: fileID, metadata: metadata, content: staged).json)
    }

    /// A new file, or a new revision of `fileID`; the staged file is gone either way.
    func googleStore(_ account: String, fileID: String?, metadata: GoogleDriveMetadata, content: GoogleStagedContent) throws(GoogleAPIError)
        -> GoogleDriveItem
    {
        defer { try? FileManager.default.removeItem(atPath: content.path) }
        if let fileID { return try backend.gdrive.updateContent(account: account, id: fileID, metadata: metadata, content: content) }
        return try backend.gdrive.create(account: account, metadata: metadata, content: content)
    }

    /// Streams the whole request body into a temporary file, checksummed.
    private func googleStage(_ request: Request) async throws -> GoogleStagedContent {
        let path = backend.gdrive.temporaryPath()
        var digest = GoogleContentDigest()
        do {
            let size = try await googleReceive(request, into: path, at: 0, limit: backend.configuration.maxRequestBodyBytes) { digest.update($0) }
            return digest.staged(path: path, size: size)
        } catch {
            try? FileManager.default.removeItem(atPath: path)
            if error is BodyTooLarge { throw GoogleAPIError.drive(.contentTooLarge, reason: "uploadTooLarge", "The upload is too large.") }
            throw error
        }
    }

    /// Writes the request body into `path` from `offset` (paced by the upload bandwidth limit); returns the bytes
    /// written. Each piece is shown to `observe` once written.
    func googleReceive(
        _ request: Request, into path: String, at offset: Int64, limit: Int64, observe: (ByteBuffer) -> Void = { _ in }
    ) async throws -> Int64 {
        let file = try DiskFile.openForWriting(path)
        let faults = backend.faults
        var throttle = BandwidthThrottle(rate: { faults.configuration.uploadBytesPerSecond })
        var written: Int64 = 0
        for try await buffer in request.body {
            _ = throttle.nextPieceSize()  // picks up a changed rate
            let count = Int64(buffer.readableBytes)
            backend.gdrive.record { $0.bytesReceived += count }
            guard written + count <= limit else { throw BodyTooLarge() }
            try file.write(buffer, at: offset + written)
            observe(buffer)
            written += count
            // Reading no further until the pace allows is what slows the sender down.
            try await throttle.didSend(buffer.readableBytes)
        }
        return written
    }
}
