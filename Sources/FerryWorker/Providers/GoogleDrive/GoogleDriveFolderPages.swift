import FerryGoogleDrive

/// A Drive folder listed a page at a time (`files.list` pages of up to 1,000 with `pageToken`), trashed items left
/// out: what a folder fetch fans out from, and what a copy from Drive lists.
struct GoogleDriveFolderPages: Sendable {
    let caller: GoogleDriveCaller
    let folderID: String
    var pageSize = GoogleDriveClient.maxPageSize

    /// The page after `token` (`nil` for the first).
    func page(after pageToken: String?) async throws -> GoogleDriveFileList {
        let (folderID, pageSize) = (self.folderID, self.pageSize)
        var page = try await caller.job("listing a folder") { client, token in
            try await client.listFiles(query: GoogleDriveQuery.children(of: folderID), pageSize: pageSize, pageToken: pageToken, accessToken: token)
        }
        // The answer is input too: only items that say they are in this folder and not trashed.
        page.files = page.files.filter { !$0.trashed && $0.parents.contains(folderID) }
        return page
    }
}
