import FerryCore
import Hummingbird

/// Drive v3 file routes without content: `files.list`, `files.create` (folders, Google Docs items, empty files),
/// `files.get`, `files.update`, `files.copy`; and downloads (`alt=media`, `Range`).
extension DevServerResponder {
    /// Largest metadata body read.
    static let googleMetadataLimit = 64 * 1024

    func googleList(_ account: String, query: [String: String]) throws(GoogleAPIError) -> Response {
        let filter = try GoogleQueryFilter(query["q"] ?? "")
        var pageSize = 100
        if let text = query["pageSize"] {
            guard let size = Int(text), (1...1000).contains(size) else {
                throw .badRequest("Invalid value '\(text.prefix(20))'. Values must be within the range: [1, 1000]", reason: "invalid")
            }
            pageSize = size
        }
        var after: Int64?
        if let token = query["pageToken"] {
            guard let value = Int64(token), value >= 0 else { throw .badRequest("Invalid pageToken.", reason: "invalid") }
            after = value
        }
        let (items, next) = backend.gdrive.list(account: account, filter: filter, pageSize: pageSize, after: after)
        var answer: [String: JSONValue] = [
            "kind": .string("drive#fileList"), "incompleteSearch": .bool(false), "files": .array(items.map(\.json)),
        ]
        if let next { answer["nextPageToken"] = .string(next) }
        return .json(.object(answer))
    }

    func googleCreate(_ account: String, request: Request) async throws -> Response {
        let metadata = try GoogleDriveMetadata(body: try await googleBody(request))
        return .json(try backend.gdrive.create(account: account, metadata: metadata, content: nil).json)
    }

    func googleGet(_ account: String, _ id: String) throws(GoogleAPIError) -> GoogleDriveItem {
        guard let item = backend.gdrive.item(account, id) else { throw .notFound(id) }
        return item
    }

    func googleUpdateMetadata(_ account: String, id: String, request: Request, query: [String: String]) async throws -> Response {
        let metadata = try GoogleDriveMetadata(body: try await googleBody(request))
        func ids(_ key: String) -> [String] { (query[key] ?? "").split(separator: ",").map(String.init).prefix(10).map { $0 } }
        let item = try backend.gdrive.updateMetadata(
            account: account, id: id, metadata: metadata, addParents: ids("addParents"), removeParents: ids("removeParents"))
        return .json(item.json)
    }

    func googleCopy(_ account: String, id: String, request: Request) async throws -> Response {
        let metadata = try GoogleDriveMetadata(body: try await googleBody(request))
        return .json(try backend.gdrive.copy(account: account, id: id, metadata: metadata).json)
    }

    /// `alt=media`: the head revision's bytes, paced like every download, with `Range`.
    func googleDownload(_ account: String, id: String, request: Request) throws -> Response {
        let item = try googleGet(account, id)
        guard let content = item.content else {
            throw GoogleAPIError.drive(
                .forbidden, reason: item.isFolder ? "fileNotDownloadable" : "fileNotDownloadable",
                "Only files with binary content can be downloaded. Use Export with Docs Editors files.")
        }
        // Opened before answering: a new revision (a rename) cannot change the bytes mid-stream.
        let file = try DiskFile.openForReading(backend.gdrive.blobPath(content.revision))
        var headers = HTTPFields()
        headers[.contentType] = item.mimeType
        headers[.acceptRanges] = "bytes"
        guard let (status, range) = ByteRange.answer(request.headers[.range], size: content.size, headers: &headers) else {
            var error = GoogleAPIError.drive(.rangeNotSatisfiable, reason: "requestedRangeNotSatisfiable", "Request range not satisfiable")
            error.headers[.contentRange] = "bytes */\(content.size)"
            throw error
        }
        backend.gdrive.record { $0.downloads += 1 }
        let gdrive = backend.gdrive
        let body = ThrottledFileBody.make(
            file: file, start: range.start, length: max(0, range.length), rate: downloadRate, pauseAt: downloadPauseAt,
            sent: { bytes in gdrive.record { $0.bytesSent += bytes } })
        return Response(status: status, headers: headers, body: body)
    }

    func googleExport(_ account: String, id: String, mimeType: String?) throws(GoogleAPIError) -> Response {
        let item = try googleGet(account, id)
        guard let mimeType else { throw .badRequest("Required parameter: mimeType", reason: "required") }
        let bytes = try GoogleDriveExport.render(item, as: mimeType)
        backend.gdrive.record { stats in
            stats.exports += 1
            stats.bytesSent += Int64(bytes.count)
        }
        var headers = HTTPFields()
        headers[.contentType] = mimeType
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// A small request body (metadata), bounded.
    func googleBody(_ request: Request) async throws -> [UInt8] {
        var request = request
        do {
            let body = try await request.collectBody(upTo: Self.googleMetadataLimit)
            return Array(body.readableBytesView)
        } catch {
            throw GoogleAPIError.drive(.contentTooLarge, reason: "uploadTooLarge", "The metadata is too large.")
        }
    }
}
