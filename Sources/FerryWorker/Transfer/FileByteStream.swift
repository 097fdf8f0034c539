import NIOCore

/// Streams a byte range of a file as pieces, read off the cooperative pool, so an upload of any size holds only
/// a piece or two in memory. `observe` sees every piece with its file offset (for hashing). With a `bandwidth`
/// limit (`--bwlimit`), each piece is paid for before it is read, so the body goes out no faster than the limit.
///
/// Pieces are `ByteBuffer`s the HTTP client keeps until they are sent, so they cannot come from `BufferPool`;
/// each is allocated at the size read (never more than is left of the range) and is not zero-filled.
struct FileByteStream: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let file: OwnedFile
    let start: Int64
    let end: Int64
    let pieceSize: Int
    var bandwidth: BandwidthBudget? = nil
    let observe: @Sendable (Int64, ByteBuffer) -> Void

    struct AsyncIterator: AsyncIteratorProtocol {
        let stream: FileByteStream
        var position: Int64

        mutating func next() async throws -> ByteBuffer? {
            guard position < stream.end else { return nil }
            let (file, at) = (stream.file, position)
            let count = Int(Swift.min(Int64(stream.pieceSize), stream.end - position))
            try await stream.bandwidth?.spend(count)
            let buffer = try await BlockingIO.run { try file.readBuffer(at: at, count: count) }
            guard buffer.readableBytes == count else {
                throw JobFailure.permanent("source_changed", "\(file.path) became shorter during the upload; enqueue it again")
            }
            stream.observe(at, buffer)
            position += Int64(count)
            return buffer
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(stream: self, position: start)
    }
}
