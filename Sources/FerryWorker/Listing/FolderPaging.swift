/// How a provider that lists one folder at a time in pages names, in a recorded session, where its listing goes on
/// (a page token, a next-page link), and what else it skips and counts. Each keeps its own names, so sessions
/// recorded before the cursors were shared still resume.
protocol FolderPaging: Sendable {
    /// The session's name for the continuation (`page_token`, `next_link`).
    static var continuationKey: String { get }
    /// The name of the count of items skipped for the provider's own reason, if it has one.
    static var skippedOwnKey: String? { get }
}
