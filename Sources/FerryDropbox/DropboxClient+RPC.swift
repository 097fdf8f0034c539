import FerryCore
import AsyncHTTPClient
import NIOCore

/// RPC routes: JSON in, JSON out, on the API host.
extension DropboxClient {
    /// Calls `POST {api}/2/{route}` with `arguments` as the JSON body and returns the parsed
    /// result (`.null` for routes answering `null`). Routes without arguments take `nil`: no body
    /// and no `Content-Type`, as Dropbox requires.
    public func rpc(_ route: String, _ arguments: JSONValue?, accessToken: String) async throws(DropboxError) -> JSONValue {
        var request = try post(endpoints.api + "/2/" + route, accessToken: accessToken)
        if let arguments {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: arguments.jsonText))
        }
        return try await sendJSON(request, Call(route: route, secrets: [accessToken]))
    }

    /// `users/get_current_account`: the account the token belongs to (`account_id`, `name`, `email`, ...).
    public func currentAccount(accessToken: String) async throws(DropboxError) -> JSONValue {
        try await rpc("users/get_current_account", nil, accessToken: accessToken)
    }

    /// `files/get_metadata` of a path (`/a/b`, `id:...` or `rev:...`). A missing path is a
    /// `.pathError` tagged `["path", "not_found"]`.
    public func getMetadata(path: String, accessToken: String) async throws(DropboxError) -> DropboxEntry {
        let result = try await rpc("files/get_metadata", .object(["path": .string(path)]), accessToken: accessToken)
        guard let entry = DropboxEntry(json: result) else {
            throw DropboxError(code: .invalidResponse, httpStatus: 200, summary: "get_metadata returned no recognizable metadata")
        }
        return entry
    }

    /// `files/delete_v2` of a path (a folder with everything in it). A missing path is a `.pathError` tagged
    /// `["path_lookup", "not_found"]`.
    public func delete(path: String, accessToken: String) async throws(DropboxError) {
        _ = try await rpc("files/delete_v2", .object(["path": .string(path)]), accessToken: accessToken)
    }

    /// `files/list_folder`: the first page of a folder's entries. The root is `""` (`"/"` is
    /// accepted here and sent as `""`, since Dropbox refuses it); `limit` is 1...2000.
    public func listFolder(path: String, recursive: Bool, limit: Int?, accessToken: String) async throws(DropboxError) -> DropboxListPage {
        var arguments: [String: JSONValue] = ["path": .string(path == "/" ? "" : path), "recursive": .bool(recursive)]
        if let limit { arguments["limit"] = .int(Int64(limit)) }
        return try Self.listPage(try await rpc("files/list_folder", .object(arguments), accessToken: accessToken))
    }

    /// `files/list_folder/continue`: the next page, or changes since a complete listing. An
    /// expired cursor is a `.pathError` tagged `["reset"]`: list again from the start.
    public func listFolderContinue(cursor: String, accessToken: String) async throws(DropboxError) -> DropboxListPage {
        try Self.listPage(try await rpc("files/list_folder/continue", .object(["cursor": .string(cursor)]), accessToken: accessToken))
    }

    /// Parses `ListFolderResult`; an entry that cannot be read fails the page rather than
    /// silently going missing.
    static func listPage(_ result: JSONValue) throws(DropboxError) -> DropboxListPage {
        guard let items = result["entries"]?.arrayValue, let cursor = result["cursor"]?.stringValue,
              let hasMore = result["has_more"]?.boolValue
        else {
            throw DropboxError(code: .invalidResponse, httpStatus: 200, summary: "list_folder result lacks entries, cursor or has_more")
        }
        var entries: [DropboxEntry] = []
        entries.reserveCapacity(items.count)
        for item in items {
            guard let entry = DropboxEntry(json: item) else {
                throw DropboxError(code: .invalidResponse, httpStatus: 200,
                                   summary: "list_folder entry with unknown tag \(item[".tag"]?.stringValue ?? "none") or missing fields")
            }
            entries.append(entry)
        }
        return DropboxListPage(entries: entries, cursor: cursor, hasMore: hasMore)
    }
}
