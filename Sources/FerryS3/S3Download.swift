import AsyncHTTPClient

/// A successful `GetObject` answer whose bytes are still on the wire: iterate ``body`` (each
/// element a `ByteBuffer`) and write each piece out, so memory stays bounded whatever the size.
public struct S3Download: Sendable {
    /// 200, or 206 when a range was asked for and honoured.
    public var status: Int
    /// The object's ETag, quotes included.
    public var etag: String?
    /// Bytes in this response body, from `Content-Length`.
    public var contentLength: Int64?
    /// Where this body sits in the object, for a 206.
    public var contentRange: S3ContentRange?
    /// `Last-Modified` as sent.
    public var lastModified: String?
    /// The object's user metadata (`x-amz-meta-NAME` headers), by lowercased NAME.
    public var metadata: [String: String]
    /// The body stream; must be consumed (or dropped) to release the connection.
    public var body: HTTPClientResponse.Body

    public init(
        status: Int, etag: String?, contentLength: Int64?, contentRange: S3ContentRange?, lastModified: String?,
        metadata: [String: String] = [:], body: HTTPClientResponse.Body
    ) {
        self.status = status
        self.etag = etag
        self.contentLength = contentLength
        self.contentRange = contentRange
        self.lastModified = lastModified
        self.metadata = metadata
        self.body = body
    }
}
