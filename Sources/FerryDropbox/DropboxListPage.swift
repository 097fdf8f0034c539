import FerryCore
/// One page of `files/list_folder` or `files/list_folder/continue`.
public struct DropboxListPage: Sendable {
    public var entries: [DropboxEntry]
    /// Pass to ``DropboxClient/listFolderContinue(cursor:accessToken:)`` for the next page (or,
    /// once ``hasMore`` is false, for later changes).
    public var cursor: String
    public var hasMore: Bool

    public init(entries: [DropboxEntry], cursor: String, hasMore: Bool) {
        self.entries = entries
        self.cursor = cursor
        self.hasMore = hasMore
    }
}
