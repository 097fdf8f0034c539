/// What an archive file holds on disk, as recorded in `ferry.archives` and its manifest.
public struct ArchiveFileFacts: Sendable, Equatable {
    /// Where the file will have its final name (it is written as `path + ".partial"` first).
    public var path: String
    /// SHA-256 of the compressed file, lowercase hex.
    public var sha256: String
    /// Size of the compressed file in bytes.
    public var bytes: Int

    public init(path: String, sha256: String, bytes: Int) {
        self.path = path
        self.sha256 = sha256
        self.bytes = bytes
    }
}
