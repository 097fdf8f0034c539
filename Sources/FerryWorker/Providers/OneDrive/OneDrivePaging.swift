/// OneDrive's pages: `children` goes on at the `@odata.nextLink`.
enum OneDrivePaging: FolderPaging {
    static var continuationKey: String { "next_link" }
    static var skippedOwnKey: String? { nil }
}
