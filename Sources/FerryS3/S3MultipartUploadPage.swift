/// One page of `ListMultipartUploads`.
public struct S3MultipartUploadPage: Sendable, Hashable {
    /// Uploads on this page, by key, then initiation time.
    public var uploads: [S3MultipartUpload]
    /// Whether more pages follow.
    public var isTruncated: Bool
    /// Pass as `keyMarker` for the next page.
    public var nextKeyMarker: String?
    /// Pass as `uploadIDMarker` for the next page.
    public var nextUploadIDMarker: String?

    public init(uploads: [S3MultipartUpload], isTruncated: Bool, nextKeyMarker: String?, nextUploadIDMarker: String?) {
        self.uploads = uploads
        self.isTruncated = isTruncated
        self.nextKeyMarker = nextKeyMarker
        self.nextUploadIDMarker = nextUploadIDMarker
    }
}
