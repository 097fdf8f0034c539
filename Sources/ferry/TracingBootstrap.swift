import Foundation
import Logging
import OTel
import ServiceLifecycle
import Tracing

/// OpenTelemetry tracing for `ferry worker`: on when `OTEL_EXPORTER_OTLP_ENDPOINT` (or
/// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set, off otherwise (no exporter, the default no-op tracer).
///
/// Spans go out over OTLP/HTTP (protobuf, or JSON with `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json`); the other
/// `OTEL_*` variables (service name, batch delay, headers, sampler) are read by swift-otel. Only traces: Ferry's
/// metrics stay on Prometheus and its logs on stderr.
enum TracingBootstrap {
    static let endpointVariables = ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"]

    /// Whether the environment asks for spans to be exported.
    static func isRequested(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        guard environment["OTEL_SDK_DISABLED"]?.lowercased() != "true", environment["OTEL_TRACES_EXPORTER"] != "none" else {
            return false
        }
        return endpointVariables.contains { !(environment[$0] ?? "").isEmpty }
    }

    /// Installs the OTel tracer process-wide and returns its service (exporter and batch processor), to run in the
    /// worker's ServiceGroup ahead of the worker so it shuts down after it and flushes the last spans; nil when off.
    static func bootstrap(serviceName: String, instance: String, logger: Logger) throws -> (any Service)? {
        guard isRequested() else { return nil }
        var configuration = OTel.Configuration.default
        configuration.serviceName = serviceName
        configuration.resourceAttributes["service.instance.id"] = instance
        configuration.logs.enabled = false
        configuration.metrics.enabled = false
        configuration.traces.enabled = true
        // swift-otel's own diagnostics: without the values of the OTEL_* variables (headers carry API keys), and
        // quiet below warning unless the worker logs at debug.
        var diagnostics = logger
        diagnostics.handler = RedactingLogHandler(
            inner: logger.handler, redacted: ["environment_value", "previous_value", "new_value"])
        configuration.diagnosticLogger = .custom(diagnostics)
        configuration.diagnosticLogLevel = switch logger.logLevel {
        case .trace: .trace
        case .debug: .debug
        case .info, .notice, .warning: .warning
        case .error, .critical: .error
        }
        let (tracer, service) = try OTel.makeTracingBackend(configuration: configuration)
        InstrumentationSystem.bootstrap(tracer)
        return service
    }
}
