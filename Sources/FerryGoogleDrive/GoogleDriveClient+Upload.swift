import AsyncHTTPClient
import FerryCore
import FerryHTTP
import NIOCore

/// Uploads: one `multipart/related` request for small files, resumable sessions for large ones, and new revisions
/// of an existing file (same id) through `PATCH /upload/drive/v3/files/ID`.
extension GoogleDriveClient {
    /// Chunks of a resumable session other than the last must be multiples of this (256 KiB).
    public static let chunkGranularity = 256 * 1024

    /// `uploadType=multipart`: the metadata and the bytes in one request. Creates a file, or with `fileID` stores a
    /// new revision of that file (its metadata updated from `metadata`). `content` streams the bytes.
    public func multipartUpload<Content: AsyncSequence & Sendable>(
        _ metadata: GoogleDriveNewFile, fileID: String? = nil, content: Content, contentLength: Int64,
        contentType: String = "application/octet-stream", accessToken: String
    ) async throws(GoogleDriveError) -> GoogleDriveFile where Content.Element == ByteBuffer {
        let boundary = MultipartRelatedBody<Content>.makeBoundary()
        let body = MultipartRelatedBody(
            boundary: boundary, metadataJSON: metadata.json(forUpdate: fileID != nil).jsonText, contentType: contentType, content: content)
        let url = uploadURL(fileID, [("uploadType", "multipart"), ("fields", GoogleDriveFile.fields), ("supportsAllDrives", "true")])
        var request = try request(fileID == nil ? .POST : .PATCH, url, accessToken: accessToken)
        request.headers.add(name: "Content-Type", value: "multipart/related; boundary=\(boundary)")
        request.body = .stream(body, length: .known(body.length(contentLength: contentLength)))
        let route = fileID == nil ? "upload.multipart" : "upload.multipart.update"
        return try Self.file(try await sendJSON(request, Call(route: route, secrets: [accessToken])), route: route)
    }

    /// `uploadType=multipart` of bytes in memory.
    public func multipartUpload(
        _ metadata: GoogleDriveNewFile, fileID: String? = nil, bytes: [UInt8], contentType: String = "application/octet-stream",
        accessToken: String
    ) async throws(GoogleDriveError) -> GoogleDriveFile {
        try await multipartUpload(
            metadata, fileID: fileID, content: ByteBufferSequence(buffers: [ByteBuffer(bytes: bytes)]), contentLength: Int64(bytes.count),
            contentType: contentType, accessToken: accessToken)
    }

    /// Starts a resumable session for `size` bytes (a new file, or with `fileID` a new revision of it) and returns
    /// its session URI: a secret of its own (whoever has it can write the file), to keep as progress and never log.
    public func startResumableSession(
        _ metadata: GoogleDriveNewFile, fileID: String? = nil, size: Int64, contentType: String = "application/octet-stream",
        accessToken: String
    ) async throws(GoogleDriveError) -> String {
        let url = uploadURL(fileID, [("uploadType", "resumable"), ("fields", GoogleDriveFile.fields), ("supportsAllDrives", "true")])
        var request = try request(fileID == nil ? .POST : .PATCH, url, accessToken: accessToken)
        request.headers.add(name: "Content-Type", value: "application/json; charset=UTF-8")
        request.headers.add(name: "X-Upload-Content-Type", value: contentType)
        request.headers.add(name: "X-Upload-Content-Length", value: String(size))
        request.body = .bytes(ByteBuffer(string: metadata.json(forUpdate: fileID != nil).jsonText))
        let call = Call(route: "upload.resumable.start", secrets: [accessToken], quietTransport: true)
        let response = try await send(request, call)
        _ = try await collect(response.body, upTo: Self.maxErrorBytes, call, truncating: true)
        guard let location = response.headers.first(name: "Location"), (try? checkSessionURI(location)) != nil else {
            throw GoogleDriveError(
                code: .invalidResponse, httpStatus: Int(response.status.code), summary: "the session start answered without a usable Location")
        }
        return location
    }

    /// Sends bytes `start..<end` of `total` to a resumable session. Non-final chunks must be multiples of
    /// ``chunkGranularity``. A session that expired is `.sessionExpired`.
    public func uploadChunk(
        session: String, body: HTTPClientRequest.Body, start: Int64, end: Int64, total: Int64, accessToken: String
    ) async throws(GoogleDriveError) -> GoogleDriveUploadStatus {
        guard start >= 0, end > start, end <= total else {
            throw GoogleDriveError(code: .badRequest, summary: "chunk \(start)..<\(end) does not fit a file of \(total) bytes")
        }
        try checkSessionURI(session)
        var request = try request(.PUT, session, accessToken: accessToken)
        request.headers.add(name: "Content-Range", value: "bytes \(start)-\(end - 1)/\(total)")
        request.body = body
        return try await sessionStatus(request, route: "upload.resumable.chunk", session: session, accessToken: accessToken)
    }

    /// Asks where a resumable session stands (an empty PUT with `Content-Range: bytes */TOTAL`): how many bytes it
    /// holds, or the file when the upload completed (an answer lost on the way is found again this way).
    public func uploadStatus(session: String, total: Int64, accessToken: String) async throws(GoogleDriveError) -> GoogleDriveUploadStatus {
        try checkSessionURI(session)
        var request = try request(.PUT, session, accessToken: accessToken)
        request.headers.add(name: "Content-Range", value: "bytes */\(total)")
        request.body = .bytes(ByteBuffer())
        return try await sessionStatus(request, route: "upload.resumable.status", session: session, accessToken: accessToken)
    }

    /// A session PUT's answer: 308 with `Range: bytes=0-N` (or none: nothing yet), or 200/201 with the file.
    private func sessionStatus(_ request: HTTPClientRequest, route: String, session: String, accessToken: String) async throws(GoogleDriveError)
        -> GoogleDriveUploadStatus
    {
        let call = Call(route: route, session: true, secrets: [accessToken] + Self.sessionSecrets(session))
        let response = try await send(request, call, accepted: { (200...299).contains($0) || $0 == 308 })
        guard response.status.code == 308 else {
            return .complete(try Self.file(try await json(of: response, call), route: route))
        }
        _ = try await collect(response.body, upTo: Self.maxErrorBytes, call, truncating: true)
        guard let range = response.headers.first(name: "Range") else { return .incomplete(received: 0) }
        guard let received = Self.receivedBytes(range) else {
            throw GoogleDriveError(code: .invalidResponse, httpStatus: 308, summary: "308 with an unusable Range header")
        }
        return .incomplete(received: received)
    }

    /// `bytes=0-N` → N + 1.
    static func receivedBytes(_ range: String) -> Int64? {
        let value = range.trimmingSpaces
        guard value.hasPrefix("bytes=0-"), let last = Int64(value.dropFirst("bytes=0-".count)), last >= 0 else { return nil }
        return last + 1
    }

    /// A session URI must point at the account's own API host: it is sent with the access token, and a recorded one
    /// comes back from the database.
    func checkSessionURI(_ session: String) throws(GoogleDriveError) {
        guard let origin = GoogleDriveEndpoints.origin(of: session), origin == endpoints.apiOrigin,
            session.dropFirst(origin.count).hasPrefix("/upload/drive/v3/files"), session.contains("upload_id=")
        else {
            throw GoogleDriveError(code: .badRequest, summary: "the resumable session URI does not point at this account's API host")
        }
    }

    /// The session URI and its `upload_id`, kept out of anything logged.
    static func sessionSecrets(_ session: String) -> [String] {
        guard let range = session.range(of: "upload_id=") else { return [session] }
        let id = session[range.upperBound...].prefix { $0 != "&" && $0 != "#" }
        return [session, String(id)]
    }
}
