import AsyncHTTPClient
import FerryCore
import Foundation
import NIOCore
import NIOHTTP1

/// The few HTTP calls the chaos run makes itself (dev server control, setup uploads, the final listing).
struct ChaosHTTP: Sendable {
    struct Reply: Sendable {
        var status: Int
        var body: [UInt8]

        var text: String { String(decoding: body, as: UTF8.self) }

        func json() throws -> JSONValue {
            do {
                return try JSONValue.parse(utf8: body)
            } catch {
                throw ChaosError("expected JSON, got HTTP \(status): \(text.prefix(300))")
            }
        }
    }

    let client: HTTPClient

    /// One request; the body is held in memory (setup files are at most tens of MiB).
    func send(_ method: HTTPMethod, _ url: String, headers: [(String, String)] = [], body: [UInt8]? = nil, timeout: Int64 = 120) async throws -> Reply {
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await client.execute(request, timeout: .seconds(timeout))
        let collected = try await response.body.collect(upTo: 64 * 1024 * 1024)
        return Reply(status: Int(response.status.code), body: Array(collected.readableBytesView))
    }

    /// A JSON request that must answer 2xx.
    func json(_ method: HTTPMethod, _ url: String, _ payload: JSONValue?, headers: [(String, String)] = []) async throws -> JSONValue {
        var all = headers
        if payload != nil { all.append(("Content-Type", "application/json")) }
        let reply = try await send(method, url, headers: all, body: payload.map { Array($0.jsonText.utf8) })
        guard (200..<300).contains(reply.status) else {
            throw ChaosError("\(method.rawValue) \(url) answered \(reply.status): \(reply.text.prefix(300))")
        }
        return reply.body.isEmpty ? .null : try reply.json()
    }

    /// Retries a call through injected faults and restarts (the chaos run's own reads must not fail the run).
    static func retrying<T: Sendable>(_ what: String, attempts: Int = 40, _ body: () async throws -> T) async throws -> T {
        var lastError: (any Error)?
        for attempt in 1...attempts {
            do {
                return try await body()
            } catch {
                lastError = error
                try await Task.sleep(for: .milliseconds(100 * min(attempt, 10)))
            }
        }
        throw ChaosError("\(what) kept failing: \(lastError.map { "\($0)" } ?? "?")")
    }
}
