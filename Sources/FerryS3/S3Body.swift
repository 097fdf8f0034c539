import AsyncHTTPClient
import NIOCore

/// A request body of known length for `PutObject` and `UploadPart`.
///
/// S3 needs the length up front (no chunked transfer), so a body is either bytes in memory or an
/// async sequence of `ByteBuffer`s together with the exact number of bytes it yields. Streaming a
/// file region piece by piece keeps memory bounded by the piece size, whatever the part size.
public struct S3Body: Sendable {
    let body: HTTPClientRequest.Body
    /// Bytes the body consists of (sent as `Content-Length`).
    public let length: Int64

    /// A body held in memory.
    public static func bytes(_ buffer: ByteBuffer) -> S3Body {
        S3Body(body: .bytes(buffer), length: Int64(buffer.readableBytes))
    }

    /// A body produced piece by piece; `sequence` must yield exactly `length` bytes (the request
    /// fails otherwise). Pieces are pulled as the connection can take them.
    public static func stream<Pieces: AsyncSequence & Sendable>(_ sequence: Pieces, length: Int64) -> S3Body
    where Pieces.Element == ByteBuffer {
        S3Body(body: .stream(sequence, length: .known(length)), length: length)
    }
}
