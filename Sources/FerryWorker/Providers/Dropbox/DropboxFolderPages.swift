import FerryDropbox

/// A Dropbox folder listed a page at a time: `list_folder` for the first page, then `list_folder/continue` with the
/// cursor Dropbox gave. What a folder fetch or copy fans out from, what a destination index reads, and what
/// `ferry ls` lists.
struct DropboxFolderPages: Sendable {
    let caller: DropboxCaller
    /// The folder as `list_folder` names it: `""` for the root, otherwise without a trailing `/`.
    let path: String
    var recursive: Bool
    /// Entries per page asked for (Dropbox's most is 2,000).
    var limit: Int? = 2000
    /// What the calls are doing, for logs and failures.
    var action: String

    /// The folder `list_folder` names for a location path (`/` or `/Camera/` or `/Camera`).
    static func folder(of path: String) -> String {
        path == "/" ? "" : String(path.hasSuffix("/") ? path.dropLast() : path[...])
    }

    /// The page after `cursor` (`nil` for the first).
    func page(after cursor: String?) async throws -> DropboxListPage {
        if let cursor {
            return try await caller.call(action) { client, token in try await client.listFolderContinue(cursor: cursor, accessToken: token) }
        }
        let (path, recursive, limit) = (self.path, self.recursive, self.limit)
        return try await caller.call(action) { client, token in
            try await client.listFolder(path: path, recursive: recursive, limit: limit, accessToken: token)
        }
    }
}
