import NIOCore

/// Buffers already in memory as an `AsyncSequence` (an upload body of bytes at hand).
struct ByteBufferSequence: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let buffers: [ByteBuffer]

    struct AsyncIterator: AsyncIteratorProtocol {
        var rest: ArraySlice<ByteBuffer>

        mutating func next() async throws -> ByteBuffer? {
            rest.popFirst()
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(rest: buffers[...]) }
}
