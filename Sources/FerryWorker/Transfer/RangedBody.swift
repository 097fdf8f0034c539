import AsyncHTTPClient
import NIOCore

/// The bytes of one range read off a download's body. A server that ignores `Range` (200, not 206) sends the file
/// from its start: the bytes before the range are dropped. Bytes past the range are never kept.
enum RangedBody {
    /// Up to `count` bytes of `body` after the first `skip`; fewer when the body ends early (the caller says so).
    static func collect(_ body: HTTPClientResponse.Body, skip: Int64, count: Int) async throws -> ByteBuffer {
        var buffer = ByteBuffer()
        var skip = skip
        for try await piece in body {
            var piece = piece
            if skip > 0 {
                let dropped = min(Int64(piece.readableBytes), skip)
                piece.moveReaderIndex(forwardBy: Int(dropped))
                skip -= dropped
            }
            let room = Int64(count) - Int64(buffer.readableBytes)
            guard room > 0 else { break }
            buffer.writeImmutableBuffer(piece.readSlice(length: Int(min(room, Int64(piece.readableBytes))))!)
        }
        return buffer
    }
}
