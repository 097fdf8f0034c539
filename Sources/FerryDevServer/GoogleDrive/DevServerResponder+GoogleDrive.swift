import FerryCore
import Hummingbird

/// Dispatch of the Google routes (Drive v3, the token endpoint, the authorize page), with the server's latency and
/// fault injection in Google's shapes: 500/503 `backendError`, rate limits as `403 rateLimitExceeded` and `429`
/// (alternately) and, for the per-second budget, `403 userRateLimitExceeded`.
extension DevServerResponder {
    func google(_ route: GoogleRoute, request: Request, context: Context) async throws -> Response {
        backend.stats.record { $0.requestsPerRoute[route.name, default: 0] += 1 }
        let configuration = backend.faults.configuration
        let applies = (!route.isOAuth || configuration.includeOAuth) && (configuration.routes?.contains(route.name) ?? true)
        if applies, configuration.latencyMilliseconds > 0 {
            try await Task.sleep(for: .milliseconds(configuration.latencyMilliseconds))
        }
        let isChunk = request.method == .put
        let decision = backend.faults.decide(route: route.name, kind: isChunk ? .append : .other, isOAuth: route.isOAuth)
        if let key = decision.statsKey { backend.stats.record { $0.faultsInjected[key, default: 0] += 1 } }
        var response: Response
        switch decision {
        case .failure(let status):
            let code: HTTPResponse.Status = status == 503 ? .serviceUnavailable : .internalServerError
            response = GoogleAPIError.drive(code, reason: "backendError", "Internal Error").response
        case .drop:
            try await dropConnection(context)
        case .rateLimit(let retryAfter), .writeRateLimit(let retryAfter):
            // Google answers both ways; alternating shows a client both.
            let odd = backend.stats.snapshot().rateLimitedResponses % 2 == 1
            backend.stats.record { $0.rateLimitedResponses += 1 }
            response = (odd
                ? GoogleAPIError.rateLimited(status: .forbidden, reason: "rateLimitExceeded", retryAfter: nil)
                : GoogleAPIError.rateLimited(status: .tooManyRequests, reason: "rateLimitExceeded", retryAfter: retryAfter)).response
        case .overBudget:
            backend.stats.record { $0.rateLimitedResponses += 1 }
            response = GoogleAPIError.rateLimited(status: .forbidden, reason: "userRateLimitExceeded", retryAfter: nil).response
        case .none, .dropAfterApply, .partialChunk, .writeContention, .corruptCommit:
            do {
                response = try await googleHandle(route, request: request, keepPartial: decision == .partialChunk)
            } catch let error as GoogleAPIError {
                response = error.response
            }
            if decision == .dropAfterApply || decision == .partialChunk { try await dropConnection(context) }
        }
        let status = response.status.code
        backend.stats.record { $0.responsesPerStatus[String(status), default: 0] += 1 }
        return response
    }

    /// Closes the TCP connection without writing a response.
    func dropConnection(_ context: Context) async throws -> Never {
        try? await context.channel.close()
        throw ConnectionDropped()
    }

    private func googleHandle(_ route: GoogleRoute, request: Request, keepPartial: Bool) async throws -> Response {
        let query = FormDecoding.decode(request.uri.query ?? "")
        switch route {
        case .token: return try await googleToken(request)
        case .authorize: return try googleAuthorize(request, query: query)
        case .upload(let id) where query["upload_id"] != nil && request.method == .put:
            return try await googleSessionPut(request, uploadID: query["upload_id"] ?? "", fileID: id, keepPartial: keepPartial)
        default: break
        }
        let account = try googleAccount(request)
        switch (route, request.method) {
        case (.files, .get): return try googleList(account, query: query)
        case (.files, .post): return try await googleCreate(account, request: request)
        case (.file(let id), .get):
            return query["alt"] == "media" ? try googleDownload(account, id: id, request: request) : .json(try googleGet(account, id).json)
        case (.file(let id), .patch): return try await googleUpdateMetadata(account, id: id, request: request, query: query)
        case (.file(let id), .delete):
            try backend.gdrive.delete(account: account, id: id)
            return Response(status: .noContent)
        case (.copy(let id), .post): return try await googleCopy(account, id: id, request: request)
        case (.export(let id), .get): return try googleExport(account, id: id, mimeType: query["mimeType"])
        case (.upload(let id), .post) where id == nil, (.upload(let id), .patch) where id != nil:
            return try await googleUpload(account, fileID: id, request: request, query: query)
        default:
            throw GoogleAPIError.drive(.methodNotAllowed, reason: "methodNotAllowed", "Method \(request.method.rawValue) is not allowed here.")
        }
    }

    /// The account of the request's bearer token; 401 without a valid one.
    func googleAccount(_ request: Request) throws(GoogleAPIError) -> String {
        guard let header = request.headers[.authorization] else { throw .unauthorized }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer", Self.isBearerToken(parts[1]) else { throw .unauthorized }
        switch backend.gdrive.checkAccessToken(String(parts[1])) {
        case .valid(let account): return account
        case .expired, .invalid: throw .unauthorized
        }
    }

    /// `scheme://host:port` as the client reached the server (for the session URIs it answers).
    func googleOrigin(_ request: Request) -> String {
        let scheme = backend.configuration.tlsCertificateFile == nil ? "http" : "https"
        return "\(scheme)://\(request.head.authority ?? backend.configuration.host)"
    }
}
