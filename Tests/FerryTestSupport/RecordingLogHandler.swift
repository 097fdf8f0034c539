import Logging

/// A `LogHandler` that renders each record into a ``LogRecorder``.
public struct RecordingLogHandler: LogHandler {
    public let recorder: LogRecorder
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .trace

    public init(recorder: LogRecorder) {
        self.recorder = recorder
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        recorder.append("\(event.level) \(event.message) \(merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))")
    }
}
