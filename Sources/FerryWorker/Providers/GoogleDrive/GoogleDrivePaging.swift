/// Drive's pages: `files.list` goes on at a page token; Google Docs items without an export format are skipped.
enum GoogleDrivePaging: FolderPaging {
    static var continuationKey: String { "page_token" }
    static var skippedOwnKey: String? { "skipped_google_docs" }
}
