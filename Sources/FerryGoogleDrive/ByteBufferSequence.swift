import NIOCore

/// Buffers already in memory as an `AsyncSequence` (an upload body of bytes at hand).
public struct ByteBufferSequence: AsyncSequence, Sendable {
    public typealias Element = ByteBuffer
    let buffers: [ByteBuffer]

    public init(buffers: [ByteBuffer]) { self.buffers = buffers }

    public struct AsyncIterator: AsyncIteratorProtocol {
        var rest: ArraySlice<ByteBuffer>

        public mutating func next() async throws -> ByteBuffer? {
            rest.popFirst()
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(rest: buffers[...]) }
}
