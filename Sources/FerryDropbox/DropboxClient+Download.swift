import FerryCore
import AsyncHTTPClient
import FerryHTTP
import NIOCore

/// Content-download routes: arguments in `Dropbox-API-Arg`, result in `Dropbox-API-Result`,
/// bytes streamed to the caller.
extension DropboxClient {
    /// `files/download` of `path` (`/a/b`, `id:...` or `rev:...`). With `rangeStart`, asks for
    /// `Range: bytes=N-`: a 206 answer then has ``DropboxDownload/contentRangeStart``, while a
    /// 200 means the server sent the whole file; a start at or past the end is HTTP 416, reported
    /// as `.badRequest` with `httpStatus == 416`. Iterate ``DropboxDownload/body`` for the bytes.
    /// With `rangeEnd` too (inclusive), asks for `Range: bytes=N-M`.
    public func download(path: String, rangeStart: Int64?, rangeEnd: Int64? = nil, accessToken: String) async throws(DropboxError) -> DropboxDownload {
        var headers: [(String, String)] = []
        if let rangeStart { headers.append(("Range", "bytes=\(rangeStart)-" + (rangeEnd.map(String.init) ?? ""))) }
        return try await contentDownload("files/download", argument: .object(["path": .string(path)]), extraHeaders: headers, accessToken: accessToken)
    }

    /// `files/get_thumbnail_v2` of the file at `path`: `size` such as `w256h256`, `format`
    /// `jpeg`/`png`/`webp`, `mode` `strict`/`bestfit`/`fitone_bestfit`.
    public func getThumbnail(path: String, size: String, format: String, mode: String, accessToken: String) async throws(DropboxError) -> DropboxDownload {
        let argument: JSONValue = .object([
            "resource": .object([".tag": .string("path"), "path": .string(path)]),
            "size": .object([".tag": .string(size)]),
            "format": .object([".tag": .string(format)]),
            "mode": .object([".tag": .string(mode)]),
        ])
        return try await contentDownload("files/get_thumbnail_v2", argument: argument, extraHeaders: [], accessToken: accessToken)
    }

    /// A download-style call; the answer's body is left for the caller to stream.
    func contentDownload(_ route: String, argument: JSONValue, extraHeaders: [(String, String)], accessToken: String) async throws(DropboxError) -> DropboxDownload {
        var request = try post(endpoints.content + "/2/" + route, accessToken: accessToken)
        request.headers.add(name: "Dropbox-API-Arg", value: argument.asciiJSONText)
        for (name, value) in extraHeaders { request.headers.add(name: name, value: value) }
        let response = try await send(request, Call(route: route, secrets: [accessToken]))
        let status = Int(response.status.code)

        var metadataJSON = JSONValue.null
        if let header = response.headers.first(name: "Dropbox-API-Result") {
            do {
                metadataJSON = try JSONValue.parse(header)
            } catch {
                throw DropboxError(code: .invalidResponse, httpStatus: status, summary: "Dropbox-API-Result is not valid JSON: \(error)")
            }
        } else {
            throw DropboxError(code: .invalidResponse, httpStatus: status, summary: "download answer without Dropbox-API-Result")
        }
        // get_thumbnail_v2 wraps the file's metadata in `file_metadata`.
        let metadata = DropboxFileMetadata(json: metadataJSON["file_metadata"] ?? metadataJSON)

        var rangeStart: Int64?
        if status == 206 {
            guard let range = response.headers.first(name: "Content-Range"), let start = Self.contentRangeStart(range) else {
                throw DropboxError(code: .invalidResponse, httpStatus: status, summary: "206 answer without a usable Content-Range")
            }
            rangeStart = start
        }
        return DropboxDownload(
            status: status, metadata: metadata, metadataJSON: metadataJSON,
            contentLength: response.headers.first(name: "Content-Length").flatMap { Int64($0.trimmingSpaces) },
            contentRangeStart: rangeStart, contentType: response.headers.first(name: "Content-Type"), body: response.body)
    }

    /// First byte of `Content-Range: bytes S-E/T`.
    static func contentRangeStart(_ value: String) -> Int64? {
        let trimmed = value.trimmingSpaces
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = trimmed.dropFirst(6).trimmingPrefix(" ")
        guard let dash = spec.firstIndex(of: "-") else { return nil }
        return Int64(spec[..<dash])
    }
}
