/// What a Drive upload does when a file of the same name is already in the folder (the `mode` option; the words are
/// the JSON format). Drive allows many files of one name in a folder; Ferry never adds a second one.
public enum GoogleDriveWriteMode: String, Codable, Sendable, CaseIterable {
    /// The same content there already counts as done; a different file fails the job, naming `overwrite`. The
    /// default of an upload that does not compare (`if_changed`); one that does stores a new revision instead.
    case add
    /// Store the upload as a new revision of that file (same id, links and sharing kept).
    case overwrite
}
