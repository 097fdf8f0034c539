import AsyncHTTPClient
import FerryHTTP
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// Building, signing and sending requests; turning answers and failures into ``S3Error``.
extension S3Client {
    /// The URL and `Host` of a request, and the path that is signed (the URL's, before encoding).
    func target(bucket: String, key: String?) -> (url: String, host: String, path: String) {
        let endpoint = configuration.endpoint
        let virtual = configuration.usesVirtualHost(for: bucket)
        let host = endpoint.authority(host: virtual ? "\(bucket).\(endpoint.host)" : endpoint.host)
        var path = virtual ? "" : "/" + bucket
        if let key { path += "/" + key }
        if path.isEmpty { path = "/" }
        return ("\(endpoint.scheme)://\(host)\(S3URIEncoding.encode(path, keepSlash: true))", host, path)
    }

    /// Refuses names that cannot be sent as meant.
    func validate(_ request: S3Request) throws(S3Error) {
        func refuse(_ why: String) -> S3Error {
            S3Error(code: .invalidArgument, operation: request.operation, message: why)
        }
        guard request.isServiceCall && request.bucket.isEmpty
            || (!request.bucket.isEmpty && !request.bucket.contains("/") && request.bucket.utf8.count <= 255
                && request.bucket.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }))
        else { throw refuse("invalid bucket name") }
        if let key = request.key {
            guard !key.isEmpty else { throw refuse("empty object key") }
            guard key.utf8.count <= 1024 else { throw refuse("object key longer than 1,024 bytes") }
        }
    }

    /// The signed request, and the signature (scrubbed from anything the server echoes).
    func prepare(_ request: S3Request, date: Date) throws(S3Error) -> (HTTPClientRequest, signature: String) {
        try validate(request)
        let (url, host, path) = target(bucket: request.bucket, key: request.key)
        let query = S3URIEncoding.canonicalQuery(request.query)
        let signature = signer.sign(
            method: request.method.rawValue, path: path, query: request.query,
            headers: [("host", host)] + request.headers, payloadHash: request.payloadHash, date: date)

        var http = HTTPClientRequest(url: query.isEmpty ? url : url + "?" + query)
        http.method = request.method
        // Set explicitly so the signed Host is the one sent.
        http.headers.add(name: "Host", value: host)
        for (name, value) in request.headers + signature.headers { http.headers.add(name: name, value: value) }
        if let body = request.body { http.body = body }
        return (http, signature.signature)
    }

    /// Executes `request` and returns the answer once it is a 2xx; other answers become errors.
    /// The body of the returned response is still unread.
    func send(_ request: S3Request) async throws(S3Error) -> HTTPClientResponse {
        let (http, signature) = try prepare(request, date: Date())
        let secrets = signer.credentials.secrets + [signature]
        let started = ContinuousClock.now
        let response: HTTPClientResponse
        do {
            response = try await httpClient.execute(
                http, timeout: Self.timeAmount(request.isUpload ? uploadTimeout : requestTimeout), logger: logger)
        } catch {
            let mapped = Self.transportError(error, operation: request.operation, secrets: secrets)
            logger.debug("S3 call failed", metadata: [
                "s3.operation": "\(request.operation)", "s3.bucket": "\(request.bucket)", "error": "\(mapped)",
                "duration": "\(ContinuousClock.now - started)",
            ])
            throw mapped
        }
        let status = Int(response.status.code)
        logger.debug("S3 answered", metadata: [
            "s3.operation": "\(request.operation)", "s3.bucket": "\(request.bucket)", "http.status": "\(status)",
            "duration": "\(ContinuousClock.now - started)",
        ])
        guard (200...299).contains(status) else {
            let body = request.method == .HEAD
                ? [] : ((try? await collect(response.body, upTo: Self.maxErrorBytes, request.operation, secrets: secrets, truncating: true)) ?? [])
            let error = S3Error.fromResponse(
                operation: request.operation, status: status, headers: response.headers, body: body,
                notFound: request.notFound, secrets: secrets)
            logger.debug("S3 error answer", metadata: ["s3.operation": "\(request.operation)", "error": "\(error)"])
            throw error
        }
        return response
    }

    /// Sends `request` and parses its XML answer. A 200 whose document is an `<Error>` (as
    /// `CompleteMultipartUpload` may send after a long wait) is an error too.
    func sendXML(_ request: S3Request) async throws(S3Error) -> S3XMLElement {
        let response = try await send(request)
        let secrets = signer.credentials.secrets
        let bytes = try await collect(response.body, upTo: Self.maxXMLBytes, request.operation, secrets: secrets, truncating: false)
        let document: S3XMLElement
        do {
            document = try S3XMLElement.parse(bytes)
        } catch {
            throw S3Error(code: .invalidResponse, operation: request.operation, httpStatus: Int(response.status.code),
                          message: "response is not valid XML: \(error)")
        }
        if document.name == "Error" {
            throw S3Error.fromResponse(
                operation: request.operation, status: Int(response.status.code), headers: response.headers, body: bytes,
                notFound: request.notFound, secrets: secrets)
        }
        return document
    }

    /// Reads and drops a body the call does not need, so the connection can be reused.
    func drain(_ response: HTTPClientResponse, _ operation: String) async throws(S3Error) {
        _ = try await collect(response.body, upTo: Self.maxErrorBytes, operation, secrets: signer.credentials.secrets, truncating: true)
    }

    /// Reads a whole (small) body, bounded in size and time. With `truncating`, a longer body
    /// is cut instead of failing (error bodies only need their code and message).
    func collect(
        _ body: HTTPClientResponse.Body, upTo limit: Int, _ operation: String, secrets: [String], truncating: Bool
    ) async throws(S3Error) -> [UInt8] {
        let timeout = requestTimeout
        do {
            return try await HTTPBodyCollector.collect(body, upTo: limit, timeout: timeout, truncating: truncating)
        } catch is HTTPBodyCollector.TooLarge {
            throw S3Error(code: .invalidResponse, operation: operation, message: "response body larger than \(limit) bytes")
        } catch {
            throw Self.transportError(error, operation: operation, secrets: secrets)
        }
    }

    /// Maps a failure without a (complete) HTTP answer.
    static func transportError(_ error: any Error, operation: String, secrets: [String]) -> S3Error {
        if let error = error as? S3Error { return error }
        if error is CancellationError {
            return S3Error(code: .transport, operation: operation, message: "cancelled", isCancellation: true)
        }
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout, .getConnectionFromPoolTimeout,
                 .tlsHandshakeTimeout, .socksHandshakeTimeout, .httpProxyHandshakeTimeout:
                return S3Error(code: .timeout, operation: operation, message: error.shortDescription)
            case .cancelled:
                return S3Error(code: .transport, operation: operation, message: "cancelled", isCancellation: true)
            case .remoteConnectionClosed:
                return S3Error(code: .transport, operation: operation, message: "connection closed before a complete response")
            default:
                // Some HTTPClientError cases quote header values (the Authorization header among
                // them); the short description never does.
                return S3Error(code: .transport, operation: operation, message: error.shortDescription)
            }
        }
        // NIO socket errors name the operation, errno and address: no request content.
        if error is IOError || error is ChannelError || error is NIOTooManyBytesError {
            return S3Error(code: .transport, operation: operation, message: S3Error.safe("\(error)", secrets: secrets))
        }
        // Anything else (e.g. a failing request body stream) is described by its type only.
        return S3Error(code: .transport, operation: operation, message: "\(type(of: error))")
    }

    static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        guard seconds < Int64.max / 1_000_000_000 - 1 else { return .hours(24 * 365) }
        return .nanoseconds(max(0, seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
    }
}
