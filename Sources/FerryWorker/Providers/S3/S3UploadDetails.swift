/// The S3 options of an upload job.
struct S3UploadDetails: Codable, Sendable, Equatable {
    /// `x-amz-storage-class` (default: the bucket's, normally STANDARD).
    var storageClass: String?
    /// `Content-Type` of the object (default: application/octet-stream).
    var contentType: String?

    enum CodingKeys: String, CodingKey {
        case storageClass = "storage_class"
        case contentType = "content_type"
    }
}
