import Foundation
import Logging
import Synchronization

/// Sets up swift-log once per process: stderr, level from `--log-level` or `FERRY_LOG_LEVEL`.
enum LoggingBootstrap {
    private static let done = Mutex(false)

    static func bootstrap(level: String?, defaultLevel: Logger.Level = .warning, json: Bool = false) {
        let first = done.withLock { done in
            defer { done = true }
            return !done
        }
        guard first else { return }
        let text = level ?? ProcessInfo.processInfo.environment["FERRY_LOG_LEVEL"]
        let resolved = text.flatMap { Logger.Level(rawValue: $0.lowercased()) } ?? defaultLevel
        LoggingSystem.bootstrap { label in
            if json {
                var handler = JSONLogHandler(label: label)
                handler.logLevel = resolved
                return handler
            }
            var handler = OneLineLogHandler(inner: StreamLogHandler.standardError(label: label))
            handler.logLevel = resolved
            return handler
        }
    }
}
