import AsyncHTTPClient
import NIOCore

/// Reads one ranged response body of a copy source into a buffer of exactly the bytes asked for: a body that
/// ends short or runs long (a server that ignored the range) is an interrupted read, retried by the next attempt.
enum CopyRangeBody {
    static func collect(_ body: HTTPClientResponse.Body, count: Int, what: String) async throws -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: count)
        do {
            for try await var piece in body {
                guard buffer.readableBytes + piece.readableBytes <= count else {
                    throw JobFailure.retryable("source_bad_range", "reading \(what): the source sent more bytes than the range asked for")
                }
                buffer.writeBuffer(&piece)
            }
        } catch let failure as JobFailure {
            throw failure
        } catch let error as CancellationError {
            throw error
        } catch {
            throw JobFailure.retryable("source_interrupted", "reading \(what) stopped after \(buffer.readableBytes) of \(count) bytes: \(error)")
        }
        guard buffer.readableBytes == count else {
            throw JobFailure.retryable("source_interrupted", "reading \(what) ended after \(buffer.readableBytes) of \(count) bytes")
        }
        return buffer
    }
}
