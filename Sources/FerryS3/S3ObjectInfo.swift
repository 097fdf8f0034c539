/// What `HeadObject` tells about an object.
public struct S3ObjectInfo: Sendable, Hashable {
    /// Size in bytes.
    public var contentLength: Int64
    /// The ETag as sent, quotes included (`"…"`; `"…-N"` for multipart uploads).
    public var etag: String
    /// `Last-Modified` as sent (an HTTP date, `Wed, 21 Oct 2026 07:28:00 GMT`).
    public var lastModified: String?
    /// `Content-Type` stored with the object.
    public var contentType: String?
    /// User metadata (`x-amz-meta-NAME`), by lowercase NAME.
    public var metadata: [String: String]

    public init(contentLength: Int64, etag: String, lastModified: String?, contentType: String?, metadata: [String: String] = [:]) {
        self.contentLength = contentLength
        self.etag = etag
        self.lastModified = lastModified
        self.contentType = contentType
        self.metadata = metadata
    }
}
