/// The OneDrive options of an upload job.
public struct OneDriveUploadDetails: Codable, Sendable, Equatable {
    public var mode: OneDriveWriteMode?
    /// Skip the upload when the file there holds the same content (size and QuickXorHash), in any mode.
    public var ifChanged: Bool?

    enum CodingKeys: String, CodingKey {
        case mode
        case ifChanged = "if_changed"
    }

    public init(mode: OneDriveWriteMode? = nil, ifChanged: Bool? = nil) {
        self.mode = mode
        self.ifChanged = ifChanged
    }
}
