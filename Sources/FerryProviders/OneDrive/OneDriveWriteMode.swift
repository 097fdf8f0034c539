/// What a OneDrive upload does when an item of the same name is already there (the `mode` option), sent to Graph as
/// `@microsoft.graph.conflictBehavior`.
public enum OneDriveWriteMode: String, Codable, Sendable, CaseIterable {
    /// The same content there already counts as done; other content fails the job (`conflictBehavior=fail`).
    case add
    /// Replace the file (a new version of the same item: `conflictBehavior=replace`).
    case overwrite
    /// Keep the file there and store the upload beside it under a new name (`conflictBehavior=rename`).
    case rename
}
