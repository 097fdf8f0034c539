import AsyncHTTPClient
import FerryCore
import FerryHTTP
import NIOCore

/// Items by path and id, folder children in pages, downloads.
extension OneDriveClient {
    /// Largest `$top` Graph takes for children.
    public static let maxPageSize = 1000

    /// `/me/drive/root[suffix]` for `/`, `/me/drive/root:/a/b:[suffix]` for `/a/b` (a trailing `/` is dropped; each
    /// name percent-encoded); `suffix` is `""`, `/content`, `/children` or `/createUploadSession`.
    public func pathURL(_ path: String, suffix: String = "") -> String {
        let names = path.split(separator: "/").map { FormEncoding.escape(String($0)) }
        guard !names.isEmpty else { return endpoints.graph + "/me/drive/root" + suffix }
        return endpoints.graph + "/me/drive/root:/" + names.joined(separator: "/") + ":" + suffix
    }

    func itemURL(_ id: String, suffix: String = "") -> String {
        endpoints.graph + "/me/drive/items/" + FormEncoding.escape(id) + suffix
    }

    /// The item at `path` (`/` is the drive's root). Nothing there is `.notFound`.
    public func item(path: String, accessToken: String) async throws(OneDriveError) -> OneDriveItem {
        let request = try request(.GET, pathURL(path), accessToken: accessToken)
        return try Self.item(try await sendJSON(request, Call(route: "item.path", secrets: [accessToken])), route: "item.path")
    }

    /// The item `id`.
    public func item(id: String, accessToken: String) async throws(OneDriveError) -> OneDriveItem {
        let request = try request(.GET, itemURL(id), accessToken: accessToken)
        return try Self.item(try await sendJSON(request, Call(route: "item.id", secrets: [accessToken])), route: "item.id")
    }

    /// The first page of the children of the folder `id` (`$top` 1…1000), or the page at `nextLink`, which must point
    /// at the account's Graph host (the access token goes with it).
    public func children(of id: String, pageSize: Int = maxPageSize, nextLink: String? = nil, accessToken: String) async throws(OneDriveError)
        -> OneDriveChildren
    {
        let url: String
        if let nextLink {
            guard let origin = OneDriveEndpoints.origin(of: nextLink), origin == OneDriveEndpoints.origin(of: endpoints.graph) else {
                throw OneDriveError(code: .invalidResponse, summary: "@odata.nextLink does not point at the account's Graph host")
            }
            url = nextLink
        } else {
            url = itemURL(id, suffix: "/children") + "?$top=\(min(Self.maxPageSize, max(1, pageSize)))"
        }
        let json = try await sendJSON(try request(.GET, url, accessToken: accessToken), Call(route: "children", secrets: [accessToken]))
        guard let values = json["value"]?.arrayValue else {
            throw OneDriveError(code: .invalidResponse, httpStatus: 200, summary: "children answered without value")
        }
        let next = json["@odata.nextLink"]?.stringValue
        return OneDriveChildren(items: values.compactMap(OneDriveItem.init(json:)), nextLink: next?.isEmpty == true ? nil : next)
    }

    /// The bytes of file `id` (`/content`). With `rangeStart`, `Range: bytes=N-` (or `N-M`): a 206 then has
    /// ``OneDriveDownload/contentRangeStart``, a 200 is the whole file, a start past the end `.rangeNotSatisfiable`.
    public func download(id: String, rangeStart: Int64? = nil, rangeEnd: Int64? = nil, accessToken: String) async throws(OneDriveError)
        -> OneDriveDownload
    {
        var request = try request(.GET, itemURL(id, suffix: "/content"), accessToken: accessToken)
        if let rangeStart { request.headers.add(name: "Range", value: "bytes=\(rangeStart)-" + (rangeEnd.map(String.init) ?? "")) }
        let response = try await send(request, Call(route: "content", secrets: [accessToken]))
        let status = Int(response.status.code)
        var start: Int64?
        if status == 206 {
            guard let range = response.headers.first(name: "Content-Range"), let parsed = Self.contentRangeStart(range) else {
                throw OneDriveError(code: .invalidResponse, httpStatus: status, summary: "206 answer without a usable Content-Range")
            }
            start = parsed
        }
        return OneDriveDownload(
            status: status, contentLength: response.headers.first(name: "Content-Length").flatMap { Int64($0.trimmingSpaces) },
            contentRangeStart: start, body: response.body)
    }

    /// `DELETE /me/drive/items/{id}`: moves the item (a folder with everything in it) to the recycle bin. An item
    /// already gone is `.notFound`.
    public func deleteItem(id: String, accessToken: String) async throws(OneDriveError) {
        let call = Call(route: "item.delete", secrets: [accessToken])
        let response = try await send(try request(.DELETE, itemURL(id), accessToken: accessToken), call)
        _ = try await collect(response.body, upTo: Self.maxErrorBytes, call, truncating: true)
    }

    /// First byte of `Content-Range: bytes S-E/T`.
    static func contentRangeStart(_ value: String) -> Int64? {
        let trimmed = value.trimmingSpaces
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = trimmed.dropFirst(6)
        guard let dash = spec.firstIndex(of: "-") else { return nil }
        return Int64(spec[..<dash])
    }

    static func item(_ json: JSONValue, route: String) throws(OneDriveError) -> OneDriveItem {
        guard let item = OneDriveItem(json: json) else {
            throw OneDriveError(code: .invalidResponse, httpStatus: 200, summary: "\(route) answered without an item id")
        }
        return item
    }
}
