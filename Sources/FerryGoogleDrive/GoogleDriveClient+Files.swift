import AsyncHTTPClient
import FerryCore
import NIOCore

/// `files.get`, `files.list`, folders, `files.copy` and `files.delete`.
extension GoogleDriveClient {
    /// Largest `pageSize` Drive takes.
    public static let maxPageSize = 1000

    /// `files.get` of `id` (`root` is the top folder of the account). An unknown id is `.notFound`.
    public func getFile(id: String, accessToken: String) async throws(GoogleDriveError) -> GoogleDriveFile {
        let request = try request(.GET, filesURL(id, [("fields", GoogleDriveFile.fields), ("supportsAllDrives", "true")]), accessToken: accessToken)
        return try Self.file(try await sendJSON(request, Call(route: "files.get", secrets: [accessToken])), route: "files.get")
    }

    /// One page of `files.list` for the search terms `query` (see ``GoogleDriveQuery``), `pageSize` 1…1000.
    public func listFiles(query: String, pageSize: Int = maxPageSize, pageToken: String? = nil, accessToken: String) async throws(GoogleDriveError)
        -> GoogleDriveFileList
    {
        var parameters = [
            ("q", query), ("pageSize", String(min(Self.maxPageSize, max(1, pageSize)))),
            ("fields", "nextPageToken,files(\(GoogleDriveFile.fields))"),
        ]
        if let pageToken { parameters.append(("pageToken", pageToken)) }
        let request = try request(.GET, filesURL(nil, parameters), accessToken: accessToken)
        let json = try await sendJSON(request, Call(route: "files.list", secrets: [accessToken]))
        guard let items = json["files"]?.arrayValue else {
            throw GoogleDriveError(code: .invalidResponse, httpStatus: 200, summary: "files.list answered without files")
        }
        let token = json["nextPageToken"]?.stringValue
        return GoogleDriveFileList(files: items.compactMap(GoogleDriveFile.init(json:)), nextPageToken: token?.isEmpty == true ? nil : token)
    }

    /// Every item named exactly `name` in the folder `parentID` (names are not unique in Drive), oldest first as
    /// listed; reads at most `limit` of them.
    public func findChildren(named name: String, in parentID: String, foldersOnly: Bool = false, limit: Int = 1000, accessToken: String)
        async throws(GoogleDriveError) -> [GoogleDriveFile]
    {
        var found: [GoogleDriveFile] = []
        var token: String?
        repeat {
            let page = try await listFiles(
                query: GoogleDriveQuery.child(named: name, in: parentID, foldersOnly: foldersOnly), pageToken: token, accessToken: accessToken)
            // The server's answer is input too: only exact matches count.
            found += page.files.filter { $0.name == name && !$0.trashed && (!foldersOnly || $0.isFolder) }
            token = page.nextPageToken
        } while token != nil && found.count < limit
        return Array(found.prefix(limit))
    }

    /// Creates a folder named `name` in `parentID`.
    public func createFolder(name: String, parentID: String, accessToken: String) async throws(GoogleDriveError) -> GoogleDriveFile {
        let metadata = GoogleDriveNewFile(name: name, parentID: parentID, mimeType: GoogleDriveFile.folderMimeType)
        var request = try request(.POST, filesURL(nil, [("fields", GoogleDriveFile.fields)]), accessToken: accessToken)
        request.headers.add(name: "Content-Type", value: "application/json; charset=UTF-8")
        request.body = .bytes(ByteBuffer(string: metadata.json(forUpdate: false).jsonText))
        return try Self.file(try await sendJSON(request, Call(route: "files.create", secrets: [accessToken])), route: "files.create")
    }

    /// `files.copy`: a server-side copy of `id` named `name` in `parentID` (both optional: Drive's defaults).
    public func copyFile(id: String, name: String?, parentID: String?, accessToken: String) async throws(GoogleDriveError) -> GoogleDriveFile {
        var members: [String: JSONValue] = [:]
        if let name { members["name"] = .string(name) }
        if let parentID { members["parents"] = .array([.string(parentID)]) }
        var request = try request(.POST, filesURL(id, suffix: "/copy", [("fields", GoogleDriveFile.fields)]), accessToken: accessToken)
        request.headers.add(name: "Content-Type", value: "application/json; charset=UTF-8")
        request.body = .bytes(ByteBuffer(string: JSONValue.object(members).jsonText))
        return try Self.file(try await sendJSON(request, Call(route: "files.copy", secrets: [accessToken])), route: "files.copy")
    }

    /// `files.update` with `trashed: true`: moves `id` to the trash, where its owner can restore it for 30 days.
    public func trashFile(id: String, accessToken: String) async throws(GoogleDriveError) {
        var request = try request(.PATCH, filesURL(id, [("fields", "id,trashed")]), accessToken: accessToken)
        request.headers.add(name: "Content-Type", value: "application/json; charset=UTF-8")
        request.body = .bytes(ByteBuffer(string: JSONValue.object(["trashed": .bool(true)]).jsonText))
        _ = try await sendJSON(request, Call(route: "files.update", secrets: [accessToken]))
    }

    /// `files.delete`: removes `id` for good (a folder with everything in it), skipping the trash.
    public func deleteFile(id: String, accessToken: String) async throws(GoogleDriveError) {
        let request = try request(.DELETE, filesURL(id), accessToken: accessToken)
        let response = try await send(request, Call(route: "files.delete", secrets: [accessToken]))
        _ = try await collect(response.body, upTo: Self.maxErrorBytes, Call(route: "files.delete", secrets: [accessToken]), truncating: true)
    }

    /// A file resource from an answer, or `.invalidResponse`.
    static func file(_ json: JSONValue, route: String) throws(GoogleDriveError) -> GoogleDriveFile {
        guard let file = GoogleDriveFile(json: json) else {
            throw GoogleDriveError(code: .invalidResponse, httpStatus: 200, summary: "\(route) answered without a file id")
        }
        return file
    }
}
