import Hummingbird
import NIOCore

/// A response body read from an open file in pieces, paced by a ``BandwidthThrottle``.
/// Memory stays bounded by one piece whatever the file size; a client that goes away
/// makes the next write throw, which ends the stream.
enum ThrottledFileBody {
    /// Streams `length` bytes from `start`; `sent` is told about every piece as it is handed to the connection.
    /// While `pauseAt` answers a byte above 0, no byte at or past it is sent (the stream waits for it to change).
    static func make(
        file: DiskFile, start: Int64, length: Int64,
        rate: @escaping @Sendable () -> Int64, pauseAt: @escaping @Sendable () -> Int64,
        sent: @escaping @Sendable (Int64) -> Void
    ) -> ResponseBody {
        ResponseBody(contentLength: Int(length)) { writer in
            var throttle = BandwidthThrottle(rate: rate)
            var offset = start
            let end = start + length
            while offset < end {
                // A pause holds back the bytes from its byte on; the client's link stays open, waiting.
                var pause = pauseAt()
                while pause > 0 && pause <= offset {
                    try await Task.sleep(for: .milliseconds(50))
                    pause = pauseAt()
                }
                let allowed = pause > 0 ? min(end, pause) - offset : end - offset
                let piece = throttle.nextPieceSize()
                let chunk = try file.read(at: offset, count: Int(min(Int64(piece), allowed)))
                if chunk.readableBytes == 0 { break }
                offset += Int64(chunk.readableBytes)
                // Counted before the write, so statistics are complete once the client has the bytes.
                sent(Int64(chunk.readableBytes))
                try await writer.write(chunk)
                try await throttle.didSend(chunk.readableBytes)
            }
            try await writer.finish(nil)
        }
    }
}
