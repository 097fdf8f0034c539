import FerryCore
import FerryStore
import Foundation
import Hummingbird
import NIOCore

extension Dashboard {
    func routes(_ router: Router<BasicRequestContext>) {
        router.get(RouterPath(base.isEmpty ? "/" : base)) { request, _ in
            await respond(request) { view in try await overview(view) }
        }
        router.get(RouterPath("\(base)/batches")) { request, _ in
            await respond(request) { view in try await batches(view) }
        }
        router.get(RouterPath("\(base)/batches/:name")) { request, context in
            let name = context.parameters.get("name") ?? ""
            let query = request.uri.queryParameters
            let state = query["status"].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
            let search = query["q"].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
            var after: UUID?
            if let text = query["after"].map(String.init), !text.isEmpty {
                guard let id = UUID(uuidString: text) else {
                    return problem(request, .badRequest, "after= must be a job id (a UUID)")
                }
                after = id
            }
            if let state, !Self.states.contains(state) {
                return problem(request, .badRequest, "status= must be one of \(Self.states.joined(separator: ", "))")
            }
            return await respond(request) { view in try await batch(name, state: state, search: search, after: after, view) }
        }
        router.get(RouterPath("\(base)/jobs/:id")) { request, context in
            guard let id = context.parameters.get("id").flatMap(UUID.init(uuidString:)) else {
                return problem(request, .notFound, "no such job: the address must end in a job id")
            }
            return await respond(request) { view in try await job(id, view) }
        }
        router.get(RouterPath("\(base)/failed")) { request, _ in
            await respond(request) { view in try await failed(view) }
        }
        router.get(RouterPath("\(base)/workers")) { request, _ in
            await respond(request) { view in try await workers(view) }
        }
        router.get(RouterPath("\(base)/events")) { request, _ in events(request) }
        router.post(RouterPath("\(base)/login")) { request, _ in try await login(request) }
        router.post(RouterPath("\(base)/jobs/:id/:action")) { request, context in
            guard let id = context.parameters.get("id").flatMap(UUID.init(uuidString:)) else {
                return problem(request, .notFound, "no such job: the address must name a job id")
            }
            return try await act(request, action: context.parameters.get("action") ?? "", target: .job(id),
                                 back: "/jobs/\(id.uuidString.lowercased())")
        }
        router.post(RouterPath("\(base)/batches/:name/:action")) { request, context in
            let name = context.parameters.get("name") ?? ""
            return try await act(request, action: context.parameters.get("action") ?? "", target: .batch(name),
                                 back: "/batches/\(HTML.component(name))")
        }
    }

    static let states = ["queued", "running", "succeeded", "failed", "cancelled"]

    /// Renders a page as JSON or HTML (by `Accept`), 404 when `build` finds nothing, 503 when the database fails.
    func respond(_ request: Request, _ build: (DashboardView) async throws -> DashboardPage?) async -> Response {
        let (csrf, fresh) = csrfToken(request)
        let view = DashboardView(base: base, readOnly: configuration.readOnly, csrf: csrf, loggedIn: request.cookies[ActionGuard.sessionCookie].map { guardian.isSession($0.value) } ?? false)
        let page: DashboardPage?
        do {
            page = try await build(view)
        } catch {
            logger.warning("dashboard page failed", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
            return problem(request, .serviceUnavailable, "the database did not answer: \(Self.safe(error))")
        }
        guard let page else { return problem(request, .notFound, "not found") }
        var response: Response
        if wantsJSON(request) {
            response = Self.body(.ok, "application/json", page.json.jsonText + "\n")
        } else {
            response = Self.body(.ok, "text/html; charset=utf-8", view.page(title: page.title, page.html))
        }
        response.headers[.cacheControl] = "no-store"
        if fresh {
            response.setCookie(
                Cookie(name: ActionGuard.csrfCookie, value: csrf, path: base.isEmpty ? "/" : base, secure: Self.isHTTPS(request),
                       httpOnly: true, sameSite: .strict))
        }
        return response
    }

    /// This browser's CSRF token: from its cookie, or a new one (then `fresh`, and the response sets the cookie).
    func csrfToken(_ request: Request) -> (String, fresh: Bool) {
        if let value = request.cookies[ActionGuard.csrfCookie]?.value, value.count == 64 { return (value, false) }
        return (ConstantTime.randomToken(), true)
    }

    func wantsJSON(_ request: Request) -> Bool {
        (request.headers[.accept] ?? "").contains("application/json")
    }

    func problem(_ request: Request, _ status: HTTPResponse.Status, _ message: String) -> Response {
        if wantsJSON(request) {
            return Self.body(status, "application/json", JSONValue.object(["error": .string(message)]).jsonText + "\n")
        }
        return Self.body(status, "text/plain; charset=utf-8", message + "\n")
    }

    static func body(_ status: HTTPResponse.Status, _ type: String, _ text: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// Error text safe to show: Ferry's own errors carry a safe description; anything else is summarised.
    static func safe(_ error: any Error) -> String {
        if let error = error as? FerryStoreError { return "\(error)" }
        return "see the dashboard's log"
    }

    /// A Server-Sent Event stream: `change` events when Ferry notifies (data: channel and payload), comments to
    /// keep it open. Fed by the shared listener, so a viewer costs no database connection.
    func events(_ request: Request) -> Response {
        guard hub.subscriberCount < Self.maxStreams else {
            return problem(request, .serviceUnavailable, "too many live viewers; reload later")
        }
        let stream = hub.subscribe()
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-store"
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                try await writer.write(ByteBuffer(string: ": ferry\nretry: 2000\n\n"))
                for await event in stream {
                    if event.channel == NotificationHub.keepAliveChannel {
                        try await writer.write(ByteBuffer(string: ": keep-alive\n\n"))
                        continue
                    }
                    let data = JSONValue.object(["channel": .string(event.channel), "payload": .string(event.payload)]).jsonText
                    try await writer.write(ByteBuffer(string: "event: change\ndata: \(data)\n\n"))
                }
                try await writer.finish(nil)
            })
    }

    /// 429 with Retry-After: too many wrong tokens lately.
    func throttled(_ request: Request, _ seconds: Int) -> Response {
        var response = problem(request, .tooManyRequests, "too many wrong tokens; try again in \(seconds) s")
        response.headers[.retryAfter] = "\(seconds)"
        return response
    }

    /// Whether the browser reached us over HTTPS: the dashboard itself serves plain HTTP on loopback, so HTTPS means
    /// a reverse proxy in front that says so (`X-Forwarded-Proto: https`). Cookies are then marked Secure.
    static func isHTTPS(_ request: Request) -> Bool {
        guard let proto = request.headers.first(where: { $0.name.canonicalName == "x-forwarded-proto" })?.value else { return false }
        return proto.split(separator: ",").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } == "https"
    }

    func form(_ request: Request) async throws -> FormFields {
        var request = request
        let buffer = try await request.collectBody(upTo: 16 * 1024)
        return FormFields(String(buffer: buffer))
    }

    func login(_ request: Request) async throws -> Response {
        if configuration.readOnly { return problem(request, .forbidden, "the dashboard is read-only") }
        let fields = try await form(request)
        let cookie = request.cookies[ActionGuard.csrfCookie]?.value
        guard let cookie, let field = fields["csrf"], ConstantTime.equals(cookie, field) else {
            return problem(request, .forbidden, "missing or wrong CSRF token: reload the page and try again")
        }
        if let seconds = guardian.throttle.retryAfter() { return throttled(request, seconds) }
        guard let session = guardian.login(token: fields["token"]) else {
            return problem(request, .unauthorized, "wrong token")
        }
        var response = Response(status: .seeOther, headers: [.location: base.isEmpty ? "/" : base + "/"])
        response.setCookie(
            Cookie(name: ActionGuard.sessionCookie, value: session, path: base.isEmpty ? "/" : base, secure: Self.isHTTPS(request),
                   httpOnly: true, sameSite: .strict))
        return response
    }

    /// Cancel or retry through FerryStore (the same event appends as `ferry cancel` / `ferry retry`).
    func act(_ request: Request, action: String, target: FerryStore.JobFilter, back: String) async throws -> Response {
        guard action == "cancel" || action == "retry" else { return problem(request, .notFound, "unknown action \(action)") }
        if configuration.readOnly { return problem(request, .forbidden, "the dashboard is read-only") }
        let fields = try await form(request)
        let verdict = guardian.check(
            authorization: request.headers[.authorization], sessionCookie: request.cookies[ActionGuard.sessionCookie]?.value,
            csrfCookie: request.cookies[ActionGuard.csrfCookie]?.value, csrfField: fields["csrf"])
        switch verdict {
        case .allowed: break
        case .unauthenticated(let reason): return problem(request, .unauthorized, reason)
        case .forbidden(let reason): return problem(request, .forbidden, reason)
        case .throttled(let seconds): return throttled(request, seconds)
        }
        let outcomes: [CommandOutcome]
        do {
            outcomes =
                action == "cancel"
                ? try await store.cancel(target, requestedBy: "ferry dashboard")
                : try await store.retry(target, requestedBy: "ferry dashboard")
        } catch let error as FerryStoreError where error.code == .notFound {
            return problem(request, .notFound, "\(error)")
        } catch {
            logger.warning("dashboard action failed", metadata: ["action": "\(action)", "error": "\(error)"])
            return problem(request, .serviceUnavailable, "the database did not answer: \(Self.safe(error))")
        }
        shared.clear()
        logger.notice("dashboard action", metadata: ["action": "\(action)", "target": "\(target)", "jobs": "\(outcomes.count)"])
        if wantsJSON(request) {
            let items = outcomes.map { outcome -> JSONValue in
                .object([
                    "job_id": .string(outcome.jobID.uuidString.lowercased()), "action": .string(outcome.action.rawValue),
                    "state": outcome.state.map { .string($0) } ?? .null,
                ])
            }
            return Self.body(.ok, "application/json", JSONValue.array(items).jsonText + "\n")
        }
        return Response(status: .seeOther, headers: [.location: base + back])
    }
}
