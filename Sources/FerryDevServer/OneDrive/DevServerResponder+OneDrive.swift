import FerryCore
import Foundation
import Hummingbird

/// Dispatch of the OneDrive emulation (Graph's drive routes, upload session URLs, the identity platform's token
/// endpoint and authorize page, the `/__dev/onedrive/` control routes), with the server's latency and fault
/// injection in Graph's shapes: 500/503 errors, throttling as `429` and `503` with `Retry-After` (alternately).
extension DevServerResponder {
    /// The answer when `path` is one of the emulation's, `nil` otherwise (the one routing line calls this).
    func oneDrive(_ request: Request, path: String, context: Context) async throws -> Response? {
        let store = OneDriveStore.of(backend)
        if path.hasPrefix("/__dev/onedrive/") {
            do {
                return try await oneDriveControl(request, path: path, store: store)
            } catch let error as OneDriveGraphError {
                return error.response
            }
        }
        guard let route = OneDriveRoute(path: path) else { return nil }
        backend.stats.record { $0.requestsPerRoute[route.name, default: 0] += 1 }
        let configuration = backend.faults.configuration
        let applies = (!route.isOAuth || configuration.includeOAuth) && (configuration.routes?.contains(route.name) ?? true)
        if applies, configuration.latencyMilliseconds > 0 {
            try await Task.sleep(for: .milliseconds(configuration.latencyMilliseconds))
        }
        if !route.isOAuth, let throttle = store.takeThrottle() {
            return OneDriveGraphError.throttled(status: throttle.status == 503 ? .serviceUnavailable : .tooManyRequests, retryAfter: throttle.retryAfter).response
        }
        let decision = backend.faults.decide(route: route.name, kind: request.method == .put ? .append : .other, isOAuth: route.isOAuth)
        if let key = decision.statsKey { backend.stats.record { $0.faultsInjected[key, default: 0] += 1 } }
        var response: Response
        switch decision {
        case .failure(let status):
            response = OneDriveGraphError(
                status: status == 503 ? .serviceUnavailable : .internalServerError, code: "generalException", message: "An unspecified error has occurred."
            ).response
        case .drop:
            try await dropConnection(context)
        case .rateLimit(let retryAfter), .writeRateLimit(let retryAfter), .overBudget(let retryAfter):
            let odd = backend.stats.snapshot().rateLimitedResponses % 2 == 1
            backend.stats.record { $0.rateLimitedResponses += 1 }
            store.record { $0.throttled += 1 }
            response = OneDriveGraphError.throttled(status: odd ? .serviceUnavailable : .tooManyRequests, retryAfter: retryAfter).response
        case .none, .dropAfterApply, .partialChunk, .writeContention, .corruptCommit:
            do {
                response = try await oneDriveHandle(route, request: request, store: store)
            } catch let error as OneDriveGraphError {
                response = error.response
            }
            if decision == .dropAfterApply || decision == .partialChunk { try await dropConnection(context) }
        }
        backend.stats.record { $0.responsesPerStatus[String(response.status.code), default: 0] += 1 }
        return response
    }

    private func oneDriveHandle(_ route: OneDriveRoute, request: Request, store: OneDriveStore) async throws -> Response {
        switch route {
        case .token: return try await oneDriveToken(request, store: store)
        case .authorize: return try oneDriveAuthorize(request, store: store)
        case .session(let id): return try await oneDriveSession(request, id: id, store: store)
        default: break
        }
        let account = try oneDriveAccount(request, store: store)
        let origin = googleOrigin(request)
        switch (route, request.method) {
        case (.drive, .get):
            let root = store.ensureAccount(account)
            return .json(.object([
                "id": .string("emulated-" + String(root.prefix(8))), "driveType": .string("personal"),
                "owner": .object(["user": .object(["displayName": .string(account)])]),
                "quota": .object(["total": .int(5 << 40), "used": .int(0), "remaining": .int(5 << 40), "state": .string("normal")]),
            ]))
        case (.item(let target), .get):
            let item = try oneDriveItem(account, target, store: store)
            return .json(item.json(parentPath: store.parentPath(account, item)))
        case (.item(let target), .delete):
            let item = try oneDriveItem(account, target, store: store)
            guard item.parentID != nil else { throw OneDriveGraphError.bad("The root cannot be deleted.", code: "accessDenied") }
            store.delete(account, id: item.id)
            return Response(status: .noContent)
        case (.children(let target), .get):
            return try oneDriveChildren(account, target, query: FormDecoding.decode(request.uri.query ?? ""), origin: origin, store: store)
        case (.content(let target), .get):
            return try oneDriveDownload(account, target, request: request, store: store)
        case (.content(.path(let names)), .put):
            return try await oneDriveSimpleUpload(account, names: names, request: request, store: store)
        case (.createSession(let names), .post):
            return try await oneDriveCreateSession(account, names: names, request: request, origin: origin, store: store)
        default:
            throw OneDriveGraphError(status: .methodNotAllowed, code: "invalidRequest", message: "Method \(request.method.rawValue) is not allowed here.")
        }
    }

    /// The account of the request's bearer token; 401 without a valid one.
    func oneDriveAccount(_ request: Request, store: OneDriveStore) throws(OneDriveGraphError) -> String {
        guard let header = request.headers[.authorization] else { throw .unauthorized }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer", let account = store.account(ofAccessToken: String(parts[1])) else {
            throw .unauthorized
        }
        return account
    }

    func oneDriveItem(_ account: String, _ target: OneDriveRoute.Target, store: OneDriveStore) throws(OneDriveGraphError) -> OneDriveDevItem {
        let found: OneDriveDevItem?
        switch target {
        case .path(let names): found = store.item(account, path: names)
        case .id(let id): found = store.item(account, id: id)
        }
        guard let found else { throw .notFound("item") }
        return found
    }
}
