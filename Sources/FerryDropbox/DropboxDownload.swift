import FerryCore
import AsyncHTTPClient

/// A successful `files/download` or `files/get_thumbnail_v2` answer whose bytes are still on
/// the wire: iterate ``body`` (each element a `ByteBuffer`) to receive them with bounded memory.
public struct DropboxDownload: Sendable {
    /// 200, or 206 when a range was asked for and honoured.
    public var status: Int
    /// File metadata from `Dropbox-API-Result` (for thumbnails, its `file_metadata`).
    public var metadata: DropboxFileMetadata?
    /// The whole `Dropbox-API-Result` JSON (`.null` when absent).
    public var metadataJSON: JSONValue
    /// Bytes in this response body, from `Content-Length`.
    public var contentLength: Int64?
    /// First byte's offset from a 206 `Content-Range`; `nil` for a 200 (the body starts at 0).
    public var contentRangeStart: Int64?
    /// `Content-Type` of the body (e.g. `image/jpeg` for thumbnails).
    public var contentType: String?
    /// The body stream; must be consumed (or dropped) to release the connection.
    public var body: HTTPClientResponse.Body

    public init(
        status: Int, metadata: DropboxFileMetadata?, metadataJSON: JSONValue, contentLength: Int64?,
        contentRangeStart: Int64?, contentType: String? = nil, body: HTTPClientResponse.Body
    ) {
        self.status = status
        self.metadata = metadata
        self.metadataJSON = metadataJSON
        self.contentLength = contentLength
        self.contentRangeStart = contentRangeStart
        self.contentType = contentType
        self.body = body
    }
}
