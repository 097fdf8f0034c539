/// The details of a URL fetch.
public struct WebFetchDetails: Codable, Sendable, Equatable {
    /// The folder the download must stay inside; jobs from before it was recorded use the target's folder.
    public var root: String?
    /// Expected SHA-256 (hex, lowercase).
    public var sha256: String?

    public init(root: String? = nil, sha256: String? = nil) {
        self.root = root
        self.sha256 = sha256
    }
}
