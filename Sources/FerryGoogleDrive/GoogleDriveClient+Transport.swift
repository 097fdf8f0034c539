import AsyncHTTPClient
import FerryCore
import FerryHTTP
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix

/// Sending requests and turning answers and failures into ``GoogleDriveError``.
extension GoogleDriveClient {
    /// `Authorization: Bearer` header value, refusing tokens that could not be sent safely.
    func bearer(_ accessToken: String) throws(GoogleDriveError) -> String {
        // Only visible ASCII: anything else would be refused by the HTTP layer, whose messages quote the header (the token).
        guard !accessToken.isEmpty, accessToken.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw GoogleDriveError(code: .badRequest, summary: "the access token is empty or contains characters not allowed in an HTTP header")
        }
        return "Bearer " + accessToken
    }

    /// A request to `url` with the bearer token and no body yet.
    func request(_ method: HTTPMethod, _ url: String, accessToken: String) throws(GoogleDriveError) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url)
        request.method = method
        request.headers.add(name: "Authorization", value: try bearer(accessToken))
        return request
    }

    /// Executes `request` and returns the answer when `accepted` says its status is a success (2xx unless told);
    /// other answers become errors. The body of the returned response is still unread.
    func send(_ request: HTTPClientRequest, _ call: Call, accepted: (Int) -> Bool = { (200...299).contains($0) }) async throws(GoogleDriveError)
        -> HTTPClientResponse
    {
        let started = ContinuousClock.now
        let response: HTTPClientResponse
        do {
            let transportLogger = call.quietTransport || call.session ? Self.silent : logger
            response = try await httpClient.execute(request, timeout: Self.timeAmount(requestTimeout), logger: transportLogger)
        } catch {
            let mapped = Self.transportError(error, secrets: call.secrets)
            logger.debug("Google Drive call failed", metadata: [
                "gdrive.route": "\(call.route)", "error": "\(mapped)", "duration": "\(ContinuousClock.now - started)",
            ])
            throw mapped
        }
        let status = Int(response.status.code)
        logger.debug("Google Drive answered", metadata: [
            "gdrive.route": "\(call.route)", "http.status": "\(status)", "duration": "\(ContinuousClock.now - started)",
        ])
        guard accepted(status) else {
            let body = (try? await collect(response.body, upTo: Self.maxErrorBytes, call, truncating: true)) ?? []
            let error = GoogleDriveError.fromResponse(
                status: status, headers: response.headers, body: body, oauth: call.oauth, session: call.session, secrets: call.secrets)
            logger.debug("Google Drive error answer", metadata: ["gdrive.route": "\(call.route)", "error": "\(error)"])
            throw error
        }
        return response
    }

    /// Sends `request` and parses its JSON answer.
    func sendJSON(_ request: HTTPClientRequest, _ call: Call) async throws(GoogleDriveError) -> JSONValue {
        let response = try await send(request, call)
        return try await json(of: response, call)
    }

    /// The JSON body of an answer.
    func json(of response: HTTPClientResponse, _ call: Call) async throws(GoogleDriveError) -> JSONValue {
        let bytes = try await collect(response.body, upTo: Self.maxJSONBytes, call, truncating: false)
        do {
            return try JSONValue.parse(utf8: bytes)
        } catch {
            throw GoogleDriveError(code: .invalidResponse, httpStatus: Int(response.status.code), summary: "response is not valid JSON: \(error)")
        }
    }

    /// Reads a whole (small) body, bounded in size and time; with `truncating` a longer body is cut.
    func collect(_ body: HTTPClientResponse.Body, upTo limit: Int, _ call: Call, truncating: Bool) async throws(GoogleDriveError) -> [UInt8] {
        do {
            return try await HTTPBodyCollector.collect(body, upTo: limit, timeout: requestTimeout, truncating: truncating)
        } catch is HTTPBodyCollector.TooLarge {
            throw GoogleDriveError(code: .invalidResponse, summary: "response body larger than \(limit) bytes")
        } catch {
            throw Self.transportError(error, secrets: call.secrets)
        }
    }

    /// A logger that writes nothing (for the HTTP layer on calls whose headers carry secrets).
    static let silent = Logger(label: "ferry.gdrive.quiet", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Maps a failure without a (complete) HTTP answer.
    static func transportError(_ error: any Error, secrets: [String]) -> GoogleDriveError {
        if let error = error as? GoogleDriveError { return error }
        if error is CancellationError {
            return GoogleDriveError(code: .transport, summary: "cancelled", isCancellation: true)
        }
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout, .getConnectionFromPoolTimeout,
                 .tlsHandshakeTimeout, .socksHandshakeTimeout, .httpProxyHandshakeTimeout:
                return GoogleDriveError(code: .timeout, summary: error.shortDescription)
            case .cancelled:
                return GoogleDriveError(code: .transport, summary: "cancelled", isCancellation: true)
            case .remoteConnectionClosed:
                return GoogleDriveError(code: .transport, summary: "connection closed before a complete response")
            default:
                // Some cases quote header values (a token); the short description never does.
                return GoogleDriveError(code: .transport, summary: error.shortDescription)
            }
        }
        // NIO socket errors name the operation, errno and address: no request content.
        if error is IOError || error is NIOConnectionError || error is ChannelError || error is NIOTooManyBytesError {
            return GoogleDriveError(code: .transport, summary: GoogleDriveError.safe("\(error)", secrets: secrets))
        }
        // Anything else (a failing request body stream, say) is described by its type only.
        return GoogleDriveError(code: .transport, summary: "\(type(of: error))")
    }

    static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        guard seconds < Int64.max / 1_000_000_000 - 1 else { return .hours(24 * 365) }
        return .nanoseconds(max(0, seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
    }

    /// `{api}/drive/v3/files[/id][/suffix]?query`.
    func filesURL(_ id: String? = nil, suffix: String = "", _ query: [(String, String)] = []) -> String {
        var url = endpoints.api + "/drive/v3/files"
        if let id { url += "/" + FormEncoding.escape(id) + suffix }
        if !query.isEmpty { url += "?" + FormEncoding.encode(query) }
        return url
    }

    /// `{api}/upload/drive/v3/files[/id]?query`.
    func uploadURL(_ id: String? = nil, _ query: [(String, String)]) -> String {
        var url = endpoints.api + "/upload/drive/v3/files"
        if let id { url += "/" + FormEncoding.escape(id) }
        return url + "?" + FormEncoding.encode(query)
    }
}
