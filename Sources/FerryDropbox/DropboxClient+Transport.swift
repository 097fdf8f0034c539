import AsyncHTTPClient
import FerryCore
import FerryHTTP
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix

/// Sending requests and turning answers and failures into ``DropboxError``.
extension DropboxClient {
    /// `Authorization: Bearer` header value, refusing tokens that could not be sent safely.
    func bearer(_ accessToken: String) throws(DropboxError) -> String {
        // Only visible ASCII: anything else would be rejected by the HTTP layer, whose error
        // messages quote the header value (the token).
        guard !accessToken.isEmpty, accessToken.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw DropboxError(code: .badRequest, summary: "the access token is empty or contains characters not allowed in an HTTP header")
        }
        return "Bearer " + accessToken
    }

    /// Executes `request` and returns the answer once it is a 2xx; other answers become errors.
    /// The body of the returned response is still unread.
    func send(_ request: HTTPClientRequest, _ call: Call) async throws(DropboxError) -> HTTPClientResponse {
        let started = ContinuousClock.now
        let response: HTTPClientResponse
        do {
            response = try await httpClient.execute(request, timeout: Self.timeAmount(requestTimeout), logger: logger)
        } catch {
            let mapped = Self.transportError(error, secrets: call.secrets)
            logger.debug("Dropbox call failed", metadata: [
                "dropbox.route": "\(call.route)", "error": "\(mapped)", "duration": "\(ContinuousClock.now - started)",
            ])
            throw mapped
        }
        let status = Int(response.status.code)
        logger.debug("Dropbox answered", metadata: [
            "dropbox.route": "\(call.route)", "http.status": "\(status)", "duration": "\(ContinuousClock.now - started)",
        ])
        guard (200...299).contains(status) else {
            let body = (try? await collect(response.body, upTo: Self.maxErrorBytes, call, truncating: true)) ?? []
            let error = DropboxError.fromResponse(status: status, headers: response.headers, body: body, oauth: call.oauth, secrets: call.secrets)
            logger.debug("Dropbox error answer", metadata: ["dropbox.route": "\(call.route)", "error": "\(error)"])
            throw error
        }
        return response
    }

    /// Sends `request` and parses its JSON answer, which must be `application/json`.
    func sendJSON(_ request: HTTPClientRequest, _ call: Call) async throws(DropboxError) -> JSONValue {
        let response = try await send(request, call)
        let type = response.headers.first(name: "Content-Type") ?? ""
        guard Self.isJSONContentType(type) else {
            throw DropboxError(code: .invalidResponse, httpStatus: Int(response.status.code),
                               summary: "expected application/json, got \"\(SafeSummary.truncate(type, limit: DropboxError.summaryLimit))\"")
        }
        let bytes = try await collect(response.body, upTo: Self.maxJSONBytes, call, truncating: false)
        do {
            return try JSONValue.parse(String(decoding: bytes, as: UTF8.self))
        } catch {
            throw DropboxError(code: .invalidResponse, httpStatus: Int(response.status.code), summary: "response is not valid JSON: \(error)")
        }
    }

    /// `application/json`, with any parameters (`; charset=utf-8`), any case.
    static func isJSONContentType(_ value: String) -> Bool {
        let base = value.split(separator: ";", maxSplits: 1).first.map { String($0).trimmingSpaces.lowercased() }
        return base == "application/json"
    }

    /// Reads a whole (small) body, bounded in size and time. With `truncating`, a longer body
    /// is cut instead of failing (error bodies only need a summary).
    func collect(_ body: HTTPClientResponse.Body, upTo limit: Int, _ call: Call, truncating: Bool) async throws(DropboxError) -> [UInt8] {
        let timeout = requestTimeout
        do {
            return try await HTTPBodyCollector.collect(body, upTo: limit, timeout: timeout, truncating: truncating)
        } catch is HTTPBodyCollector.TooLarge {
            throw DropboxError(code: .invalidResponse, summary: "response body larger than \(limit) bytes")
        } catch {
            throw Self.transportError(error, secrets: call.secrets)
        }
    }

    /// Maps a failure without a (complete) HTTP answer.
    static func transportError(_ error: any Error, secrets: [String]) -> DropboxError {
        if let error = error as? DropboxError { return error }
        if error is CancellationError {
            return DropboxError(code: .transport, summary: "cancelled", isCancellation: true)
        }
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout, .getConnectionFromPoolTimeout,
                 .tlsHandshakeTimeout, .socksHandshakeTimeout, .httpProxyHandshakeTimeout:
                return DropboxError(code: .timeout, summary: Self.safeName(error))
            case .cancelled:
                return DropboxError(code: .transport, summary: "cancelled", isCancellation: true)
            case .remoteConnectionClosed:
                return DropboxError(code: .transport, summary: "connection closed before a complete response")
            default:
                // Some HTTPClientError cases quote header values; the short description never does.
                return DropboxError(code: .transport, summary: Self.safeName(error))
            }
        }
        // NIO socket errors name the operation, errno and address: no request content.
        if error is IOError || error is NIOConnectionError || error is ChannelError || error is NIOTooManyBytesError {
            return DropboxError(code: .transport, summary: DropboxError.safe("\(error)", secrets: secrets))
        }
        // Anything else (e.g. a failing request body stream) is described by its type only.
        return DropboxError(code: .transport, summary: "\(type(of: error))")
    }

    /// AsyncHTTPClient's bounded description, which never includes associated values.
    private static func safeName(_ error: HTTPClientError) -> String {
        error.shortDescription
    }

    static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        guard seconds < Int64.max / 1_000_000_000 - 1 else { return .hours(24 * 365) }
        return .nanoseconds(max(0, seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
    }

    /// A POST to `url` with the bearer token and no body yet.
    func post(_ url: String, accessToken: String) throws(DropboxError) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Authorization", value: try bearer(accessToken))
        return request
    }
}
