import AsyncHTTPClient
import FerryCore
import NIOCore

/// Uploads: one `PUT …:/content` for small files, upload sessions for larger ones.
extension OneDriveClient {
    /// Ranges of a session other than the last must be multiples of this (320 KiB).
    public static let rangeGranularity = 320 * 1024
    /// Largest range Graph takes in one PUT (60 MiB).
    public static let maxRange = 60 * 1024 * 1024
    /// Largest file sent in one simple upload (4 MiB).
    public static let simpleUploadLimit: Int64 = 4 * 1024 * 1024

    /// `PUT /me/drive/root:/path:/content?@microsoft.graph.conflictBehavior=…`: the whole file in one request
    /// (folders on the way are made by Graph). `fail` with an item there is `.conflict`.
    public func uploadSmall(
        path: String, body: HTTPClientRequest.Body, conflict: OneDriveConflictBehavior, accessToken: String
    ) async throws(OneDriveError) -> OneDriveItem {
        let url = pathURL(path, suffix: "/content") + "?@microsoft.graph.conflictBehavior=" + conflict.rawValue
        var request = try request(.PUT, url, accessToken: accessToken)
        request.headers.add(name: "Content-Type", value: "application/octet-stream")
        request.body = body
        return try Self.item(try await sendJSON(request, Call(route: "upload.simple", secrets: [accessToken])), route: "upload.simple")
    }

    /// `POST /me/drive/root:/path:/createUploadSession` with the conflict behaviour and the file's modification
    /// time. The session URL is a secret of its own: keep it as progress, never log it.
    public func createUploadSession(
        path: String, conflict: OneDriveConflictBehavior, modified: String?, accessToken: String
    ) async throws(OneDriveError) -> OneDriveUploadSession {
        var item: [String: JSONValue] = ["@microsoft.graph.conflictBehavior": .string(conflict.rawValue)]
        if let modified { item["fileSystemInfo"] = .object(["lastModifiedDateTime": .string(modified)]) }
        var request = try request(.POST, pathURL(path, suffix: "/createUploadSession"), accessToken: accessToken)
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: JSONValue.object(["item": .object(item)]).jsonText))
        let call = Call(route: "upload.session.create", secrets: [accessToken])
        let json = try await sendJSON(request, call)
        guard let url = json["uploadUrl"]?.stringValue, (try? checkSessionURL(url)) != nil else {
            throw OneDriveError(code: .invalidResponse, httpStatus: 200, summary: "createUploadSession answered without a usable uploadUrl")
        }
        return OneDriveUploadSession(
            uploadURL: url, expiration: json["expirationDateTime"]?.stringValue, nextExpected: Self.nextExpected(json) ?? [0])
    }

    /// `PUT uploadUrl` with bytes `start..<end` of `total` (`Content-Range`), no `Authorization` (the URL is the
    /// credential). 202 with `nextExpectedRanges` until the last range, then 200/201 with the item. An expired
    /// session is `.sessionExpired`.
    public func uploadRange(
        session url: String, body: HTTPClientRequest.Body, start: Int64, end: Int64, total: Int64
    ) async throws(OneDriveError) -> OneDriveUploadStatus {
        guard start >= 0, end > start, end <= total else {
            throw OneDriveError(code: .badRequest, summary: "range \(start)..<\(end) does not fit a file of \(total) bytes")
        }
        try checkSessionURL(url)
        var request = try request(.PUT, url, accessToken: nil)
        request.headers.add(name: "Content-Range", value: "bytes \(start)-\(end - 1)/\(total)")
        request.headers.add(name: "Content-Length", value: String(end - start))
        request.body = body
        let call = Call(route: "upload.session.range", session: true, secrets: [url])
        let response = try await send(request, call)
        let json = try await json(of: response, call)
        if response.status.code == 202 {
            guard let next = Self.nextExpected(json) else {
                throw OneDriveError(code: .invalidResponse, httpStatus: 202, summary: "202 without nextExpectedRanges")
            }
            return .incomplete(nextExpected: next)
        }
        return .complete(try Self.item(json, route: "upload.session.range"))
    }

    /// `GET uploadUrl`: what the session still expects (after a crash, on another machine).
    public func uploadSessionStatus(session url: String) async throws(OneDriveError) -> OneDriveUploadSession {
        try checkSessionURL(url)
        let call = Call(route: "upload.session.status", session: true, secrets: [url])
        let json = try await sendJSON(try request(.GET, url, accessToken: nil), call)
        guard let next = Self.nextExpected(json) else {
            throw OneDriveError(code: .invalidResponse, httpStatus: 200, summary: "the session's status has no nextExpectedRanges")
        }
        return OneDriveUploadSession(uploadURL: url, expiration: json["expirationDateTime"]?.stringValue, nextExpected: next)
    }

    /// `DELETE uploadUrl`: gives a session up (its bytes are dropped). A session already gone is fine.
    public func cancelUploadSession(session url: String) async throws(OneDriveError) {
        try checkSessionURL(url)
        let call = Call(route: "upload.session.cancel", session: true, secrets: [url])
        do throws(OneDriveError) {
            _ = try await send(try request(.DELETE, url, accessToken: nil), call)
        } catch {
            guard error.code == .sessionExpired else { throw error }
        }
    }

    /// A session URL must be https (Microsoft's upload hosts), or on the account's own Graph host (a dev server
    /// on plain http): a recorded one comes back from the database, and the file's bytes go there.
    public func checkSessionURL(_ url: String) throws(OneDriveError) {
        guard let origin = OneDriveEndpoints.origin(of: url),
            origin.hasPrefix("https://") || origin == OneDriveEndpoints.origin(of: endpoints.graph)
        else {
            throw OneDriveError(code: .badRequest, summary: "the upload session URL is not https nor on the account's Graph host")
        }
    }

    /// `nextExpectedRanges: ["12345-", "20000-30000"]` → the start of each, sorted; `nil` when absent or unreadable.
    static func nextExpected(_ json: JSONValue) -> [Int64]? {
        guard let ranges = json["nextExpectedRanges"]?.arrayValue else { return nil }
        var starts = [Int64]()
        for range in ranges {
            guard let text = range.stringValue, let dash = text.firstIndex(of: "-"), let start = Int64(text[..<dash]), start >= 0 else { return nil }
            starts.append(start)
        }
        return starts.sorted()
    }
}
