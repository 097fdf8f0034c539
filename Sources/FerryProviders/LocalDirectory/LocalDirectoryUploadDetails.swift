/// The options of an upload into a local directory.
public struct LocalDirectoryUploadDetails: Codable, Sendable, Equatable {
    /// Skip the copy when the destination already holds the same content (same size, then compared byte for byte).
    public var ifChanged: Bool?

    enum CodingKeys: String, CodingKey {
        case ifChanged = "if_changed"
    }

    public init(ifChanged: Bool? = nil) {
        self.ifChanged = ifChanged
    }
}
