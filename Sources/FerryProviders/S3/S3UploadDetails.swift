/// The S3 options of an upload job.
public struct S3UploadDetails: Codable, Sendable, Equatable {
    /// `x-amz-storage-class` (default: the bucket's, normally STANDARD).
    public var storageClass: String?
    /// `Content-Type` of the object (default: application/octet-stream).
    public var contentType: String?
    /// Skip the upload when the object already holds the same content (size, and the MD5 of a plain ETag or
    /// the modification time Ferry stores as `x-amz-meta-mtime`).
    public var ifChanged: Bool?

    enum CodingKeys: String, CodingKey {
        case storageClass = "storage_class"
        case contentType = "content_type"
        case ifChanged = "if_changed"
    }

    public init(storageClass: String? = nil, contentType: String? = nil, ifChanged: Bool? = nil) {
        self.storageClass = storageClass
        self.contentType = contentType
        self.ifChanged = ifChanged
    }
}
