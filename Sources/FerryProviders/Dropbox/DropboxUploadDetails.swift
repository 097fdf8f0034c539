/// The Dropbox options of an upload job, applied to the commit (`/2/files/upload`, `upload_session/finish`).
public struct DropboxUploadDetails: Codable, Sendable, Equatable {
    /// `add` (a different file at the path is a conflict) or `overwrite` (replace it). `nil`: an upload that
    /// compares (`if_changed`) commits a changed file as an update of the revision it saw; one that does not adds.
    public var mode: DropboxWriteMode?
    /// On a conflict, let Dropbox pick a free name (`photo (1).jpg`) instead of failing.
    public var autorename: Bool?
    /// Do not notify the account's devices of the change.
    public var mute: Bool?
    /// Skip the upload when the destination already holds the same content (size and `content_hash`).
    public var ifChanged: Bool?

    enum CodingKeys: String, CodingKey {
        case mode, autorename, mute
        case ifChanged = "if_changed"
    }

    public init(mode: DropboxWriteMode? = nil, autorename: Bool? = nil, mute: Bool? = nil, ifChanged: Bool? = nil) {
        self.mode = mode
        self.autorename = autorename
        self.mute = mute
        self.ifChanged = ifChanged
    }
}
