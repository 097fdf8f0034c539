/// The S3 options of an upload job.
public struct S3UploadDetails: Codable, Sendable, Equatable {
    /// `x-amz-storage-class` (default: the bucket's, normally STANDARD).
    public var storageClass: String?
    /// `Content-Type` of the object (default: application/octet-stream).
    public var contentType: String?

    enum CodingKeys: String, CodingKey {
        case storageClass = "storage_class"
        case contentType = "content_type"
    }

    public init(storageClass: String? = nil, contentType: String? = nil) {
        self.storageClass = storageClass
        self.contentType = contentType
    }
}
