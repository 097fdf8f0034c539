import AsyncHTTPClient
import FerryCore
import FerryHTTP
import NIOCore

/// Downloads (`alt=media`, with `Range`) and exports of Google Docs items.
extension GoogleDriveClient {
    /// The bytes of file `id`. With `rangeStart`, asks for `Range: bytes=N-` (or `N-M` with `rangeEnd`, inclusive): a
    /// 206 then has ``GoogleDriveDownload/contentRangeStart``, a 200 is the whole file, and a start at or past the
    /// end is 416 (`.badRequest` with `httpStatus == 416`). A Google Docs item has no bytes (`.forbidden`,
    /// `fileNotDownloadable`): export it.
    public func download(id: String, rangeStart: Int64? = nil, rangeEnd: Int64? = nil, accessToken: String) async throws(GoogleDriveError)
        -> GoogleDriveDownload
    {
        var request = try request(.GET, filesURL(id, [("alt", "media"), ("supportsAllDrives", "true")]), accessToken: accessToken)
        if let rangeStart { request.headers.add(name: "Range", value: "bytes=\(rangeStart)-" + (rangeEnd.map(String.init) ?? "")) }
        return try await streamed(request, route: "files.get.media", accessToken: accessToken)
    }

    /// `files.export` of a Google Docs, Sheets or Slides item to `mimeType` (`application/pdf`, `text/csv`…).
    public func export(id: String, mimeType: String, accessToken: String) async throws(GoogleDriveError) -> GoogleDriveDownload {
        let request = try request(.GET, filesURL(id, suffix: "/export", [("mimeType", mimeType)]), accessToken: accessToken)
        return try await streamed(request, route: "files.export", accessToken: accessToken)
    }

    private func streamed(_ request: HTTPClientRequest, route: String, accessToken: String) async throws(GoogleDriveError) -> GoogleDriveDownload {
        let response = try await send(request, Call(route: route, secrets: [accessToken]))
        let status = Int(response.status.code)
        var start: Int64?
        var complete: Int64?
        if status == 206 {
            guard let range = response.headers.first(name: "Content-Range"), let parsed = Self.contentRange(range) else {
                throw GoogleDriveError(code: .invalidResponse, httpStatus: status, summary: "206 answer without a usable Content-Range")
            }
            (start, complete) = parsed
        }
        return GoogleDriveDownload(
            status: status, contentLength: response.headers.first(name: "Content-Length").flatMap { Int64($0.trimmingSpaces) },
            contentRangeStart: start, completeLength: complete, contentType: response.headers.first(name: "Content-Type"),
            body: response.body)
    }

    /// First byte and total of `Content-Range: bytes S-E/T` (`T` may be `*`).
    static func contentRange(_ value: String) -> (start: Int64, total: Int64?)? {
        let trimmed = value.trimmingSpaces
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = trimmed.dropFirst(6).trimmingPrefix(" ")
        guard let dash = spec.firstIndex(of: "-"), let start = Int64(spec[..<dash]) else { return nil }
        let total = spec.firstIndex(of: "/").flatMap { Int64(spec[spec.index(after: $0)...]) }
        return (start, total)
    }
}
