import FerryCore
import FerryTestSupport
import Foundation
import Hummingbird
import NIOCore
import Synchronization

/// A minimal OTLP/HTTP trace receiver on loopback: accepts `POST /v1/traces` in the JSON encoding
/// (`OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json`) and keeps every request body, as a collector would receive them.
final class OTLPReceiver: Sendable {
    /// One exported span, flattened.
    struct ReceivedSpan: Sendable {
        var name: String
        var traceID: String
        var spanID: String
        var parentSpanID: String
        var attributes: [String: String]
        /// OTLP status code: 0 unset, 1 ok, 2 error.
        var statusCode: Int
        var statusMessage: String
        var links: [(traceID: String, spanID: String)]
        var startNanos: UInt64
        var endNanos: UInt64
        /// The exporting process's `service.instance.id` (the worker's name).
        var instance: String?
    }

    private let bodies = Mutex<[String]>([])
    private let server = Mutex<(port: Int?, task: Task<Void, any Error>?)>((nil, nil))

    /// The port it listens on (loopback).
    var port: Int { server.withLock { $0.port ?? 0 } }

    /// The endpoint to put in `OTEL_EXPORTER_OTLP_ENDPOINT`.
    var endpoint: String { "http://127.0.0.1:\(port)" }

    static func start() async throws -> OTLPReceiver {
        let receiver = OTLPReceiver()
        try await receiver.listen()
        return receiver
    }

    private func listen() async throws {
        let router = Router()
        router.post("v1/traces") { [self] request, _ -> Response in
            let buffer = try await request.body.collect(upTo: 64 << 20)
            let text = String(decoding: buffer.readableBytesView, as: UTF8.self)
            bodies.withLock { $0.append(text) }
            return Response(
                status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: "{}")))
        }
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { [self] channel in server.withLock { $0.port = channel.localAddress?.port } })
        let task = Task { try await app.runService(gracefulShutdownSignals: []) }
        server.withLock { $0.task = task }
        do {
            try await eventually(timeout: .seconds(10), "the receiver to listen") { server.withLock { $0.port } != nil }
        } catch {
            task.cancel()
            throw error
        }
    }

    func stop() { server.withLock { $0.task?.cancel() } }

    /// Request bodies received so far (OTLP JSON text).
    var requests: [String] { bodies.withLock { $0 } }

    /// Every span received so far.
    func spans() throws -> [ReceivedSpan] {
        var spans = [ReceivedSpan]()
        for body in requests {
            let request = try JSONValue.parse(body)
            for resourceSpans in request["resourceSpans"]?.arrayValue ?? [] {
                var instance: String?
                for attribute in resourceSpans["resource"]?["attributes"]?.arrayValue ?? [] where attribute["key"]?.stringValue == "service.instance.id" {
                    instance = attribute["value"]?["stringValue"]?.stringValue
                }
                for scope in resourceSpans["scopeSpans"]?.arrayValue ?? [] {
                    for span in scope["spans"]?.arrayValue ?? [] {
                        var attributes = [String: String]()
                        for attribute in span["attributes"]?.arrayValue ?? [] {
                            guard let key = attribute["key"]?.stringValue, let value = attribute["value"]?.objectValue?.first?.value else { continue }
                            attributes[key] = Self.text(value)
                        }
                        let links = (span["links"]?.arrayValue ?? []).map {
                            (traceID: Self.hexID($0["traceId"]), spanID: Self.hexID($0["spanId"]))
                        }
                        spans.append(ReceivedSpan(
                            name: span["name"]?.stringValue ?? "", traceID: Self.hexID(span["traceId"]), spanID: Self.hexID(span["spanId"]),
                            parentSpanID: Self.hexID(span["parentSpanId"]), attributes: attributes,
                            statusCode: Int(span["status"]?["code"].map(Self.text) ?? "0") ?? 0,
                            statusMessage: span["status"]?["message"]?.stringValue ?? "", links: links,
                            startNanos: UInt64(span["startTimeUnixNano"].map(Self.text) ?? "0") ?? 0,
                            endNanos: UInt64(span["endTimeUnixNano"].map(Self.text) ?? "0") ?? 0,
                            instance: instance))
                    }
                }
            }
        }
        return spans
    }

    private static func text(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): text
        case .int(let number): String(number)
        case .double(let number): String(number)
        case .bool(let flag): String(flag)
        default: value.jsonText
        }
    }

    /// Ids as lowercase hex: the OTLP JSON encoding asks for hex, protobuf's JSON mapping gives base64.
    private static func hexID(_ value: JSONValue?) -> String {
        guard let text = value?.stringValue, !text.isEmpty else { return "" }
        if text.count == 32 || text.count == 16, text.allSatisfy(\.isHexDigit) { return text.lowercased() }
        guard let data = Data(base64Encoded: text) else { return text }
        return data.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
