import Hummingbird
import Logging
import NIOCore
import Prometheus
import ServiceLifecycle

/// Serves `/metrics` (Prometheus text format), `/health` and `/ready` on one address, as a service beside the
/// worker.
///
/// - `/health` answers 200 as long as the process serves HTTP: nothing is checked, so a liveness probe never
///   restarts a worker that waits for its database or drains.
/// - `/ready` answers 200 when `readiness` says so (worker running, database reachable, schema current) and 503
///   with the reason otherwise.
///
/// It keeps serving while the worker waits for the schema and while it drains.
public struct MetricsEndpoint: Service, CustomStringConvertible {
    let registry: PrometheusCollectorRegistry
    let processMetrics: ProcessMetrics
    let address: ListenAddress
    let readiness: WorkerReadiness?
    let logger: Logger

    public init(registry: PrometheusCollectorRegistry, address: ListenAddress, readiness: WorkerReadiness?, logger: Logger) {
        self.registry = registry
        self.processMetrics = ProcessMetrics(registry: registry)
        self.address = address
        self.readiness = readiness
        self.logger = logger
    }

    public var description: String { "MetricsEndpoint(\(address))" }

    public func run() async throws {
        let router = Router()
        let (registry, processMetrics) = (self.registry, self.processMetrics)
        let readiness = self.readiness
        router.get("metrics") { _, _ -> Response in
            processMetrics.update()
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
        router.get("health") { _, _ in "ok\n" }
        router.get("ready") { _, _ -> Response in
            let answer = await readiness?.check() ?? WorkerReadiness.Answer(ready: true, detail: "ready")
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; charset=utf-8"
            return Response(
                status: answer.ready ? .ok : .serviceUnavailable, headers: headers,
                body: .init(byteBuffer: ByteBuffer(string: answer.detail + "\n")))
        }
        let logger = self.logger
        let address = self.address
        let app = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname(address.host, port: address.port)),
            onServerRunning: { channel in
                // The real port (with port 0 the kernel picks one): tests and operators read it here.
                let port = channel.localAddress?.port ?? address.port
                logger.info(
                    "metrics endpoint listening", metadata: ["address": "\(ListenAddress(host: address.host, port: port))"])
            },
            logger: logger)
        do {
            try await app.runService()
        } catch let error as IOError {
            throw MetricsEndpointError(address: address, reason: "\(error)")
        } catch let error as SocketAddressError {
            throw MetricsEndpointError(address: address, reason: "\(error)")
        }
    }
}
