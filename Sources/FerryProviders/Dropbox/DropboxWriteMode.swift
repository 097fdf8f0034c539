/// What a Dropbox upload does when a different file is already at its path (the `mode` option, and the
/// `mode` of the job's details: the words are the wire and JSON format).
public enum DropboxWriteMode: String, Codable, Sendable, CaseIterable {
    /// The job fails on a conflict (identical content is not one): the default of an upload that does not compare.
    case add
    /// Replace the file.
    case overwrite
}
