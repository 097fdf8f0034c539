import AsyncHTTPClient
import NIOCore

/// Reads a whole (small) response body into memory, bounded in size and in time: the one body reader of the
/// provider clients (Dropbox, S3), which map its failures to their own error types.
public enum HTTPBodyCollector {
    /// The body was longer than the limit (and not `truncating`).
    public struct TooLarge: Error, Sendable {
        public let limit: Int
    }

    /// The body's bytes, at most `limit` of them: with `truncating` a longer body is cut (error bodies only need a
    /// summary), otherwise it throws ``TooLarge``. Throws `HTTPClientError.deadlineExceeded` after `timeout`, and
    /// whatever the transport throws.
    public static func collect(
        _ body: HTTPClientResponse.Body, upTo limit: Int, timeout: Duration, truncating: Bool
    ) async throws -> [UInt8] {
        try await withThrowingTaskGroup(of: [UInt8]?.self) { group in
            group.addTask {
                var bytes: [UInt8] = []
                for try await buffer in body {
                    guard bytes.count + buffer.readableBytes <= limit else {
                        if truncating {
                            bytes.append(contentsOf: buffer.readableBytesView.prefix(limit - bytes.count))
                            return bytes
                        }
                        throw TooLarge(limit: limit)
                    }
                    bytes.append(contentsOf: buffer.readableBytesView)
                }
                return bytes
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let bytes = first else {
                throw HTTPClientError.deadlineExceeded
            }
            return bytes
        }
    }
}
