import AsyncHTTPClient
import FerryCore
import FerryHTTP
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix

/// A Microsoft Graph (v1.0) OneDrive client: items by path and id, children pages (`@odata.nextLink`), simple
/// uploads (`PUT …:/content`, up to 4 MiB), upload sessions (`createUploadSession`, byte ranges of 320 KiB
/// multiples, `nextExpectedRanges`), ranged downloads, and the Microsoft identity platform's token endpoint.
///
/// Stateless apart from its configuration: every call takes the access token to use. Calls throw
/// ``OneDriveError`` only. It knows nothing of jobs or databases.
///
/// ```swift
/// let client = OneDriveClient(httpClient: .shared, endpoints: .single("http://127.0.0.1:8910"), logger: logger)
/// let grant = try await client.refreshAccessToken(refreshToken: refresh, clientID: id, clientSecret: nil)
/// let item = try await client.item(path: "/Photos/a.jpg", accessToken: grant.accessToken)
/// ```
public struct OneDriveClient: Sendable {
    let httpClient: HTTPClient
    public let endpoints: OneDriveEndpoints
    let logger: Logger
    public let requestTimeout: Duration

    static let maxJSONBytes = 16 * 1024 * 1024
    static let maxErrorBytes = 64 * 1024

    public init(httpClient: HTTPClient, endpoints: OneDriveEndpoints, logger: Logger, requestTimeout: Duration = .seconds(120)) {
        self.httpClient = httpClient
        self.endpoints = endpoints
        self.logger = logger
        self.requestTimeout = requestTimeout
    }

    /// What the transport needs to know about one call.
    struct Call {
        var route: String
        /// The token endpoint: errors use the RFC 6749 shape.
        var oauth = false
        /// An upload session URL: 404 means the session is gone.
        var session = false
        /// Values scrubbed from anything taken from a response.
        var secrets: [String]
    }

    /// `Authorization: Bearer` header value, refusing tokens that could not be sent safely.
    func bearer(_ accessToken: String) throws(OneDriveError) -> String {
        guard !accessToken.isEmpty, accessToken.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw OneDriveError(code: .badRequest, summary: "the access token is empty or contains characters not allowed in an HTTP header")
        }
        return "Bearer " + accessToken
    }

    func request(_ method: HTTPMethod, _ url: String, accessToken: String?) throws(OneDriveError) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url)
        request.method = method
        if let accessToken { request.headers.add(name: "Authorization", value: try bearer(accessToken)) }
        return request
    }

    /// Executes `request`; answers `accepted` does not take become errors. The body of the returned response is unread.
    func send(_ request: HTTPClientRequest, _ call: Call, accepted: (Int) -> Bool = { (200...299).contains($0) }) async throws(OneDriveError)
        -> HTTPClientResponse
    {
        let started = ContinuousClock.now
        let response: HTTPClientResponse
        do {
            // The HTTP layer's trace lines show headers: a session URL or a token would be among them.
            response = try await httpClient.execute(request, timeout: Self.timeAmount(requestTimeout), logger: Self.silent)
        } catch {
            let mapped = Self.transportError(error, secrets: call.secrets)
            logger.debug("OneDrive call failed", metadata: ["onedrive.route": "\(call.route)", "error": "\(mapped)"])
            throw mapped
        }
        let status = Int(response.status.code)
        logger.debug("OneDrive answered", metadata: [
            "onedrive.route": "\(call.route)", "http.status": "\(status)", "duration": "\(ContinuousClock.now - started)",
        ])
        guard accepted(status) else {
            let body = (try? await collect(response.body, upTo: Self.maxErrorBytes, call, truncating: true)) ?? []
            throw OneDriveError.fromResponse(
                status: status, headers: response.headers, body: body, oauth: call.oauth, session: call.session, secrets: call.secrets)
        }
        return response
    }

    func sendJSON(_ request: HTTPClientRequest, _ call: Call) async throws(OneDriveError) -> JSONValue {
        let response = try await send(request, call)
        return try await json(of: response, call)
    }

    func json(of response: HTTPClientResponse, _ call: Call) async throws(OneDriveError) -> JSONValue {
        let bytes = try await collect(response.body, upTo: Self.maxJSONBytes, call, truncating: false)
        do {
            return try JSONValue.parse(utf8: bytes)
        } catch {
            throw OneDriveError(code: .invalidResponse, httpStatus: Int(response.status.code), summary: "response is not valid JSON")
        }
    }

    func collect(_ body: HTTPClientResponse.Body, upTo limit: Int, _ call: Call, truncating: Bool) async throws(OneDriveError) -> [UInt8] {
        do {
            return try await HTTPBodyCollector.collect(body, upTo: limit, timeout: requestTimeout, truncating: truncating)
        } catch is HTTPBodyCollector.TooLarge {
            throw OneDriveError(code: .invalidResponse, summary: "response body larger than \(limit) bytes")
        } catch {
            throw Self.transportError(error, secrets: call.secrets)
        }
    }

    static let silent = Logger(label: "ferry.onedrive.quiet", factory: { _ in SwiftLogNoOpLogHandler() })

    static func transportError(_ error: any Error, secrets: [String]) -> OneDriveError {
        if let error = error as? OneDriveError { return error }
        if error is CancellationError { return OneDriveError(code: .transport, summary: "cancelled", isCancellation: true) }
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout, .getConnectionFromPoolTimeout,
                 .tlsHandshakeTimeout, .socksHandshakeTimeout, .httpProxyHandshakeTimeout:
                return OneDriveError(code: .timeout, summary: error.shortDescription)
            case .cancelled:
                return OneDriveError(code: .transport, summary: "cancelled", isCancellation: true)
            case .remoteConnectionClosed:
                return OneDriveError(code: .transport, summary: "connection closed before a complete response")
            default:
                return OneDriveError(code: .transport, summary: error.shortDescription)
            }
        }
        if error is IOError || error is NIOConnectionError || error is ChannelError || error is NIOTooManyBytesError {
            return OneDriveError(code: .transport, summary: OneDriveError.safe("\(error)", secrets: secrets))
        }
        return OneDriveError(code: .transport, summary: "\(type(of: error))")
    }

    static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        guard seconds < Int64.max / 1_000_000_000 - 1 else { return .hours(24 * 365) }
        return .nanoseconds(max(0, seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
    }
}
