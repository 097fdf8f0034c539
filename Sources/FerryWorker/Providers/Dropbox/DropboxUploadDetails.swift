/// The Dropbox options of an upload job, applied to the commit (`/2/files/upload`, `upload_session/finish`).
struct DropboxUploadDetails: Codable, Sendable, Equatable {
    /// `add` (default: a different file at the path is a conflict) or `overwrite` (replace it).
    var mode: String?
    /// On a conflict, let Dropbox pick a free name (`photo (1).jpg`) instead of failing.
    var autorename: Bool?
    /// Do not notify the account's devices of the change.
    var mute: Bool?
}
