import NIOCore

/// A `multipart/related` upload body (`uploadType=multipart`): the metadata part, then the media part streamed from
/// `content`, so a file never has to be in memory whole.
struct MultipartRelatedBody<Content: AsyncSequence & Sendable>: AsyncSequence, Sendable where Content.Element == ByteBuffer {
    typealias Element = ByteBuffer

    let head: ByteBuffer
    let content: Content
    let tail: ByteBuffer

    /// A boundary that cannot occur in the metadata JSON (no `-` runs of this length) and is unlikely in the media.
    static func makeBoundary() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return "ferry_" + String((0..<32).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }

    init(boundary: String, metadataJSON: String, contentType: String, content: Content) {
        head = ByteBuffer(string: "--\(boundary)\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n\(metadataJSON)\r\n"
            + "--\(boundary)\r\nContent-Type: \(contentType)\r\n\r\n")
        self.content = content
        tail = ByteBuffer(string: "\r\n--\(boundary)--\r\n")
    }

    /// The body's length for a media part of `contentLength` bytes.
    func length(contentLength: Int64) -> Int64 {
        Int64(head.readableBytes + tail.readableBytes) + contentLength
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        enum Phase { case head, content, tail, done }
        let body: MultipartRelatedBody
        var phase = Phase.head
        var inner: Content.AsyncIterator

        mutating func next() async throws -> ByteBuffer? {
            switch phase {
            case .head:
                phase = .content
                return body.head
            case .content:
                if let piece = try await inner.next() { return piece }
                phase = .done
                return body.tail
            case .tail:
                phase = .done
                return body.tail
            case .done:
                return nil
            }
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(body: self, inner: content.makeAsyncIterator())
    }
}
