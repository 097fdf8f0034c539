import FerryTestSupport
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Reaches a worker's metrics endpoint over loopback: finds its address in the worker's JSON log (it listens on
/// port 0, so the kernel picked the port) and GETs its paths.
struct MetricsProbe {
    let base: String

    /// Waits for the worker's "metrics endpoint listening" log line.
    static func of(_ worker: BackgroundProcess) async throws -> MetricsProbe {
        var address: String?
        try await eventually(timeout: .seconds(300), "the metrics endpoint's address in the log") {
            for line in worker.log.split(separator: "\n") where line.hasPrefix("{") {
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                    object["message"] as? String == "metrics endpoint listening"
                else { continue }
                address = object["address"] as? String
            }
            return address != nil
        }
        return MetricsProbe(base: "http://\(address!)")
    }

    /// Status and body of `GET path`; status 0 when nothing answered.
    func get(_ path: String) async -> (status: Int, body: String) {
        var request = URLRequest(url: URL(string: base + path)!)
        request.timeoutInterval = 10
        guard let (data, response) = try? await URLSession.shared.data(for: request) else { return (0, "") }
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    func scrape() async throws -> PrometheusText {
        let (status, body) = await get("/metrics")
        guard status == 200 else { throw TestSupportError("GET /metrics answered \(status)") }
        return PrometheusText(body)
    }
}
