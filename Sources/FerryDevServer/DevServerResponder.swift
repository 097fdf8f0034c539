import FerryCore
import Hummingbird
import Logging
import NIOCore

/// Dispatches every request: `/__dev/` control routes, the stand-in routes (Flickr, plain web
/// files), then Dropbox routes with fault injection, authentication and Dropbox-shaped errors.
struct DevServerResponder: HTTPResponder {
    typealias Context = DevServerRequestContext

    let backend: DevServerBackend

    /// Thrown after the channel was closed on purpose; Hummingbird's fallback response then
    /// has nowhere to go, so the client sees a connection closed without a response.
    struct ConnectionDropped: Error {}

    func respond(to request: Request, context: Context) async throws -> Response {
        let path = request.uri.path
        if let response = try await instagram(request, path: path) { return response }
        if let response = try await oneDrive(request, path: path, context: context) { return response }
        if path.hasPrefix("/__dev/") {
            do {
                return try await control(request, path: path)
            } catch let error as DropboxError {
                return error.response
            }
        }
        if let route = GoogleRoute(path: path) { return try await google(route, request: request, context: context) }
        if let route = StandInRoute(path: path) {
            return try await withFaults(route: route.name, kind: .other, isOAuth: false, dropboxShaped: false, context: context) { _ in
                try await standIn(route, request: request)
            }
        }
        guard let endpoint = Endpoint(path: path) else {
            return DropboxError.text(.notFound, "Unknown API function: \"\(path)\"").response
        }
        return try await withFaults(
            route: endpoint.rawValue, kind: endpoint.faultKind, isOAuth: endpoint.style == .oauth, dropboxShaped: true, context: context
        ) { decision in
            try await handle(endpoint, request: request, context: context, decision: decision)
        }
    }

    /// Counts the request, adds latency, draws a fault and either injects it or runs `handler`.
    /// `dropboxShaped` picks Dropbox's JSON 429 body; stand-in routes answer 429 in plain text.
    private func withFaults(
        route: String, kind: FaultInjector.RouteKind, isOAuth: Bool, dropboxShaped: Bool, context: Context,
        _ handler: (FaultDecision) async throws -> Response
    ) async throws -> Response {
        backend.stats.record { $0.requestsPerRoute[route, default: 0] += 1 }
        let latency = backend.faults.latencyMilliseconds
        let configuration = backend.faults.configuration
        if latency > 0, !isOAuth || configuration.includeOAuth, configuration.routes?.contains(route) ?? true {
            try await Task.sleep(for: .milliseconds(latency))
        }
        let decision = backend.faults.decide(route: route, kind: kind, isOAuth: isOAuth)
        if let key = decision.statsKey, decision != .writeContention {
            backend.stats.record { $0.faultsInjected[key, default: 0] += 1 }
        }

        var response: Response
        switch decision {
        case .failure(let status):
            response = DropboxError.text(
                status == 503 ? .serviceUnavailable : .internalServerError,
                status == 503 ? "Service Unavailable" : "Internal Server Error"
            ).response
        case .drop:
            try await drop(context)
        case .rateLimit(let retryAfter), .overBudget(let retryAfter):
            backend.stats.record { $0.rateLimitedResponses += 1 }
            if dropboxShaped {
                response = DropboxError.rateLimited(retryAfter: retryAfter).response
            } else {
                var error = DropboxError.text(.tooManyRequests, "Too Many Requests")
                error.headers[.retryAfter] = String(retryAfter)
                response = error.response
            }
        case .writeRateLimit(let retryAfter):
            // Namespace lock contention in its 429 form: RateLimitError with reason too_many_write_operations.
            backend.stats.record { $0.rateLimitedResponses += 1 }
            response = DropboxError.rateLimited(retryAfter: retryAfter, reason: "too_many_write_operations").response
        case .none, .dropAfterApply, .writeContention, .partialChunk, .corruptCommit:
            do {
                response = try await handler(decision)
            } catch let error as DropboxError {
                response = error.response
            }
            if decision == .dropAfterApply || decision == .partialChunk {
                try await drop(context)
            }
        }
        let status = response.status.code
        backend.stats.record { $0.responsesPerStatus[String(status), default: 0] += 1 }
        return response
    }

    /// Closes the TCP connection without writing a response.
    private func drop(_ context: Context) async throws -> Never {
        try? await context.channel.close()
        throw ConnectionDropped()
    }

    /// Counts a write-contention fault that a handler actually turned into an error.
    func recordContention() {
        backend.stats.record { $0.faultsInjected["write_contention", default: 0] += 1 }
    }

    private func handle(_ endpoint: Endpoint, request: Request, context: Context, decision: FaultDecision) async throws -> Response {
        if endpoint.style == .oauth {
            return try await oauth(endpoint, request: request)
        }
        if request.method != .post && !(endpoint.style == .download && request.method == .get) {
            throw DropboxError.badRequest(route: endpoint.rawValue, "Unsupported HTTP method \(request.method.rawValue); use POST.")
        }
        let auth = try authenticate(request, route: endpoint.rawValue)
        let contention = decision == .writeContention
        switch endpoint {
        case .revokeToken:
            try await voidArgument(request, route: endpoint.rawValue)
            backend.tokens.revoke(accessToken: auth.token)
            return .json(.null)
        case .getCurrentAccount:
            try await voidArgument(request, route: endpoint.rawValue)
            return .json(currentAccount(auth.account))
        case .getSpaceUsage:
            try await voidArgument(request, route: endpoint.rawValue)
            return .json(try spaceUsage(auth.account))
        case .getMetadata:
            return .json(try getMetadata(auth.account, try await rpcArgument(request, route: endpoint.rawValue)))
        case .listFolder:
            return .json(try listFolder(auth.account, try await rpcArgument(request, route: endpoint.rawValue)))
        case .listFolderContinue:
            return .json(try listFolderContinue(auth.account, try await rpcArgument(request, route: endpoint.rawValue)))
        case .listFolderGetLatestCursor:
            return .json(try listFolderLatestCursor(auth.account, try await rpcArgument(request, route: endpoint.rawValue)))
        case .createFolder:
            return .json(try createFolder(auth.account, try await rpcArgument(request, route: endpoint.rawValue)))
        case .delete:
            return .json(try delete(auth.account, try await rpcArgument(request, route: endpoint.rawValue)))
        case .uploadSessionFinishBatchV2:
            let result = try await finishBatch(
                auth.account, try await rpcArgument(request, route: endpoint.rawValue), route: endpoint.rawValue, contention: contention,
                corrupt: decision == .corruptCommit)
            return .json(result)
        case .uploadSessionFinishBatch:
            let result = try await finishBatch(
                auth.account, try await rpcArgument(request, route: endpoint.rawValue), route: endpoint.rawValue, contention: contention,
                corrupt: decision == .corruptCommit)
            let jobID = backend.files.storeBatchJob(result)
            return .json(.object([".tag": .string("async_job_id"), "async_job_id": .string(jobID)]))
        case .uploadSessionFinishBatchCheck:
            return .json(try finishBatchCheck(try await rpcArgument(request, route: endpoint.rawValue), route: endpoint.rawValue))
        case .upload:
            return try await upload(auth.account, request: request, contention: contention, corrupt: decision == .corruptCommit)
        case .uploadSessionStart:
            return try await uploadSessionStart(auth.account, request: request)
        case .uploadSessionAppendV2, .uploadSessionAppend:
            return try await uploadSessionAppend(auth.account, request: request, endpoint: endpoint, keepPartial: decision == .partialChunk)
        case .uploadSessionFinish:
            return try await uploadSessionFinish(auth.account, request: request, contention: contention, corrupt: decision == .corruptCommit)
        case .download:
            return try download(auth.account, request: request)
        case .getThumbnailV2, .getThumbnail:
            return try thumbnail(auth.account, request: request, endpoint: endpoint)
        case .oauthToken, .oauthAuthorize:
            throw DropboxError.text(.notFound, "Unknown API function")
        }
    }
}
