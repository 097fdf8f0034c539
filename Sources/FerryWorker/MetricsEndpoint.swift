import Hummingbird
import Logging
import Prometheus
import ServiceLifecycle

/// Serves `/metrics` (Prometheus text format) and `/health` on a port, as a service beside the worker.
///
/// It keeps serving while the worker drains, so liveness probes do not kill a worker that is finishing jobs.
public struct MetricsEndpoint: Service {
    let registry: PrometheusCollectorRegistry
    let host: String
    let port: Int
    let logger: Logger

    public init(registry: PrometheusCollectorRegistry, host: String = "0.0.0.0", port: Int, logger: Logger) {
        self.registry = registry
        self.host = host
        self.port = port
        self.logger = logger
    }

    public func run() async throws {
        let router = Router()
        let registry = self.registry
        router.get("metrics") { _, _ -> Response in
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
        router.get("health") { _, _ in "ok\n" }
        let app = Application(
            router: router, configuration: ApplicationConfiguration(address: .hostname(host, port: port)), logger: logger)
        try await app.runService()
    }
}
