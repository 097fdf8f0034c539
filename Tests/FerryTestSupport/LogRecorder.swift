import Logging
import Synchronization

/// Collects every log line (message and metadata) so tests can check that no secret was logged.
public final class LogRecorder: Sendable {
    private let lines = Mutex<[String]>([])

    public init() {}

    public var all: [String] { lines.withLock { $0 } }

    public func append(_ line: String) { lines.withLock { $0.append(line) } }

    /// A logger at `trace` level writing here.
    public func logger(label: String) -> Logger {
        var logger = Logger(label: label) { _ in RecordingLogHandler(recorder: self) }
        logger.logLevel = .trace
        return logger
    }
}
