/// An unfinished multipart upload, as `ListMultipartUploads` lists it.
public struct S3MultipartUpload: Sendable, Hashable {
    public var key: String
    public var uploadID: String
    /// ISO 8601 time the upload was created, as listed.
    public var initiated: String?

    public init(key: String, uploadID: String, initiated: String?) {
        self.key = key
        self.uploadID = uploadID
        self.initiated = initiated
    }
}
