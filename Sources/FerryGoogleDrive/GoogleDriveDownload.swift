import AsyncHTTPClient

/// A download or export whose bytes are still on the wire: iterate ``body`` (each element a `ByteBuffer`) to
/// receive them with bounded memory.
public struct GoogleDriveDownload: Sendable {
    /// 200, or 206 when a range was asked for and honoured.
    public var status: Int
    /// Bytes in this response body, from `Content-Length`.
    public var contentLength: Int64?
    /// First byte's offset from a 206 `Content-Range`; `nil` for a 200 (the body starts at 0).
    public var contentRangeStart: Int64?
    /// The whole file's size from a 206 `Content-Range` (`bytes S-E/TOTAL`).
    public var completeLength: Int64?
    public var contentType: String?
    /// The body stream; must be consumed (or dropped) to release the connection.
    public var body: HTTPClientResponse.Body

    public init(
        status: Int, contentLength: Int64?, contentRangeStart: Int64?, completeLength: Int64?, contentType: String?,
        body: HTTPClientResponse.Body
    ) {
        self.status = status
        self.contentLength = contentLength
        self.contentRangeStart = contentRangeStart
        self.completeLength = completeLength
        self.contentType = contentType
        self.body = body
    }
}
