/// The Google Drive options of an upload job.
public struct GoogleDriveUploadDetails: Codable, Sendable, Equatable {
    public var mode: GoogleDriveWriteMode?
    /// Skip the upload when the file there holds the same content (size and MD5), in either mode.
    public var ifChanged: Bool?

    enum CodingKeys: String, CodingKey {
        case mode
        case ifChanged = "if_changed"
    }

    public init(mode: GoogleDriveWriteMode? = nil, ifChanged: Bool? = nil) {
        self.mode = mode
        self.ifChanged = ifChanged
    }
}
