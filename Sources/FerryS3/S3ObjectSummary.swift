/// One object of a `ListObjectsV2` page.
public struct S3ObjectSummary: Sendable, Hashable {
    public var key: String
    /// Size in bytes.
    public var size: Int64
    /// The ETag as listed, quotes included.
    public var etag: String
    /// ISO 8601 time, as listed (`2026-11-24T15:13:42.000Z`).
    public var lastModified: String?

    public init(key: String, size: Int64, etag: String, lastModified: String?) {
        self.key = key
        self.size = size
        self.etag = etag
        self.lastModified = lastModified
    }
}
