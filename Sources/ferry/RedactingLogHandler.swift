import Logging

/// Passes log records on without the metadata keys named: swift-otel's diagnostics log the raw value of each
/// `OTEL_*` variable they read (`environment_value`), which for `OTEL_EXPORTER_OTLP_HEADERS` is often an API key.
struct RedactingLogHandler: LogHandler {
    var inner: any LogHandler
    let redacted: Set<String>

    var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue.filter { !redacted.contains($0.key) } }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { inner.metadataProvider }
        set { inner.metadataProvider = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { if !redacted.contains(key) { inner[metadataKey: key] = newValue } }
    }

    func log(event: LogEvent) {
        var event = event
        event.metadata = event.metadata?.filter { !redacted.contains($0.key) }
        inner.log(event: event)
    }
}
