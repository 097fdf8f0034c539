import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
@testable import FerryDevServer

/// Starts a dev server on a free port in a fresh storage directory, hands it to a test body
/// together with an HTTP client, and tears everything down afterwards.
final class DevServerHarness: Sendable {
    static let appKey = "test-app-key"

    let server: DevServer
    let client: HTTPClient
    let baseURL: String
    let storage: String

    private init(server: DevServer, client: HTTPClient, baseURL: String, storage: String) {
        self.server = server
        self.client = client
        self.baseURL = baseURL
        self.storage = storage
    }

    static func run(
        appSecret: String? = nil,
        accessTokenLifetime: Double = 14400,
        faults: FaultConfiguration = .none,
        storage existingStorage: String? = nil,
        configure: (inout DevServerConfiguration) -> Void = { _ in },
        _ body: (DevServerHarness) async throws -> Void
    ) async throws {
        let storage = existingStorage ?? Self.temporaryStorage()
        var logger = Logger(label: "ferry.dev-server.test")
        logger.logLevel = .warning
        var configuration = DevServerConfiguration(
            storageDirectory: storage, appKey: appKey, appSecret: appSecret,
            accessTokenLifetime: accessTokenLifetime, faults: faults
        )
        configure(&configuration)
        let server = try DevServer(configuration: configuration, logger: logger)
        // Run it the way `ferry dev-server` does: as a Service, stopped by graceful shutdown.
        let group = ServiceGroup(services: [server], logger: logger)
        let task = Task { try await group.run() }
        let client = HTTPClient(
            eventLoopGroup: HTTPClient.defaultEventLoopGroup,
            configuration: .init(redirectConfiguration: .disallow)
        )
        var failure: (any Error)?
        do {
            let port = try await server.waitUntilRunning()
            let harness = DevServerHarness(server: server, client: client, baseURL: "http://127.0.0.1:\(port)", storage: storage)
            try await body(harness)
        } catch {
            failure = error
        }
        try? await client.shutdown()
        await group.triggerGracefulShutdown()
        _ = try? await task.value
        // A storage directory handed in belongs to the caller (restart tests reuse it).
        if existingStorage == nil { try? FileManager.default.removeItem(atPath: storage) }
        if let failure { throw failure }
    }

    static func temporaryStorage() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("ferry-devserver-\(UUID().uuidString)").path
    }

    // MARK: Requests

    func request(_ method: HTTPMethod, _ path: String, headers: [(String, String)] = [], body: [UInt8]? = nil) async throws -> HTTPResult {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await client.execute(request, timeout: .seconds(600))
        let collected = try await response.body.collect(upTo: 256 * 1024 * 1024)
        return HTTPResult(status: Int(response.status.code), headers: response.headers, body: Array(collected.readableBytesView))
    }

    /// RPC call with a JSON body (`nil` sends no body, like argument-less routes).
    func rpc(_ route: String, token: String, _ json: String? = nil) async throws -> HTTPResult {
        var headers = [("Authorization", "Bearer \(token)")]
        if json != nil { headers.append(("Content-Type", "application/json")) }
        return try await request(.POST, "/2/" + route, headers: headers, body: json.map { Array($0.utf8) })
    }

    /// Content-upload call: arguments in `Dropbox-API-Arg`, raw bytes in the body.
    func content(_ route: String, token: String, arg: String, body: [UInt8] = [], extraHeaders: [(String, String)] = []) async throws -> HTTPResult {
        try await request(.POST, "/2/" + route, headers: [
            ("Authorization", "Bearer \(token)"),
            ("Dropbox-API-Arg", arg),
            ("Content-Type", "application/octet-stream"),
        ] + extraHeaders, body: body)
    }

    func upload(_ path: String, _ data: [UInt8], token: String, mode: String = "add", extra: String = "") async throws -> HTTPResult {
        try await content("files/upload", token: token, arg: "{\"path\":\"\(path)\",\"mode\":\"\(mode)\"\(extra)}", body: data)
    }

    func download(_ arg: String, token: String, range: String? = nil) async throws -> HTTPResult {
        var headers = [("Authorization", "Bearer \(token)"), ("Dropbox-API-Arg", arg)]
        if let range { headers.append(("Range", range)) }
        return try await request(.POST, "/2/files/download", headers: headers)
    }

    /// `POST /oauth2/token` with a form body.
    func tokenRequest(_ form: [(String, String)], basicAuth: (String, String)? = nil) async throws -> HTTPResult {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let body = form.map { "\($0)=\($1.addingPercentEncoding(withAllowedCharacters: allowed) ?? $1)" }.joined(separator: "&")
        var headers = [("Content-Type", "application/x-www-form-urlencoded")]
        if let (user, password) = basicAuth {
            headers.append(("Authorization", "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()))
        }
        return try await request(.POST, "/oauth2/token", headers: headers, body: Array(body.utf8))
    }

    /// The app secret the server checks (its default unless the test set one).
    var appSecret: String { server.configuration.appSecret }

    /// Links an account and returns a fresh access token obtained through the refresh flow, as a confidential
    /// app does it (with the app secret).
    func accessToken(account: String = "alice") async throws -> String {
        let refresh = server.issueRefreshToken(account: account)
        let result = try await tokenRequest([
            ("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", Self.appKey), ("client_secret", appSecret),
        ])
        return result.json["access_token"] as? String ?? ""
    }

    /// A GET whose body is read as it arrives: how many pieces it came in and how long it took.
    func timedGet(_ path: String, headers: [(String, String)] = []) async throws -> (result: HTTPResult, pieces: Int, seconds: Double) {
        var request = HTTPClientRequest(url: baseURL + path)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let started = ContinuousClock.now
        let response = try await client.execute(request, timeout: .seconds(600))
        var body: [UInt8] = []
        var pieces = 0
        for try await buffer in response.body {
            pieces += 1
            body += buffer.readableBytesView
        }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return (HTTPResult(status: Int(response.status.code), headers: response.headers, body: body), pieces, seconds)
    }

    /// Flickr REST call: `GET /services/rest/?<query>`.
    func flickr(_ query: String) async throws -> HTTPResult {
        try await request(.GET, "/services/rest/?" + query)
    }

    /// Whether the request ended without any HTTP response (connection closed).
    func isDropped(_ operation: () async throws -> HTTPResult) async -> Bool {
        do {
            _ = try await operation()
            return false
        } catch {
            return true
        }
    }
}
