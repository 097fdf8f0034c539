/// One page of `files.list`.
public struct GoogleDriveFileList: Sendable {
    public var files: [GoogleDriveFile]
    /// Where the next page starts; `nil` on the last page.
    public var nextPageToken: String?

    public init(files: [GoogleDriveFile], nextPageToken: String?) {
        self.files = files
        self.nextPageToken = nextPageToken
    }
}
