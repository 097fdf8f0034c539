import FerryCore
import FerryStore
import Foundation
import Hummingbird
import NIOCore

extension Dashboard {
    func routes(_ router: Router<DashboardRequestContext>) {
        jobPageRoutes(router)
        fleetPageRoutes(router)
        sessionRoutes(router)
        actionRoutes(router)
    }

    /// The pages of work: the overview, batches and jobs.
    private func jobPageRoutes(_ router: Router<DashboardRequestContext>) {
        router.get(RouterPath(base.isEmpty ? "/" : base)) { request, context in
            await respond(request, context) { view in try await overview(view) }
        }
        router.get(RouterPath("\(base)/batches")) { request, context in
            await respond(request, context) { view in try await batches(view) }
        }
        router.get(RouterPath("\(base)/batches/:name")) { request, context in
            // Parameters arrive percent-encoded (a batch named "x/y" is the one segment "x%2Fy").
            guard let name = context.parameters.get("name")?.removingPercentEncoding else {
                return problem(request, .badRequest, "the batch name in the address is not validly percent-encoded")
            }
            let query = queryFields(request)
            let state = query["status"].flatMap { $0.isEmpty ? nil : $0 }
            let search = query["q"].flatMap { $0.isEmpty ? nil : $0 }
            var after: UUID?
            if let text = query["after"], !text.isEmpty {
                guard let id = UUID(uuidString: text) else {
                    return problem(request, .badRequest, "after= must be a job id (a UUID)")
                }
                after = id
            }
            if let state, !Self.states.contains(state) {
                return problem(request, .badRequest, "status= must be one of \(Self.states.joined(separator: ", "))")
            }
            let sort = query["sort"].flatMap { $0.isEmpty ? nil : $0 } ?? BatchJobOrder.enqueued.rawValue
            guard let order = BatchJobOrder(rawValue: sort) else {
                return problem(request, .badRequest, "sort= must be one of \(BatchJobOrder.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return await respond(request, context) { view in
                try await batch(name, state: state, search: search, after: after, order: order, view)
            }
        }
        router.get(RouterPath("\(base)/jobs/:id")) { request, context in
            guard let id = context.parameters.get("id").flatMap(UUID.init(uuidString:)) else {
                return problem(request, .notFound, "no such job: the address must end in a job id")
            }
            return await respond(request, context) { view in try await job(id, view) }
        }
    }

    /// The pages of the fleet around the work: failures, search, queues, workers, schedules, accounts, trends.
    private func fleetPageRoutes(_ router: Router<DashboardRequestContext>) {
        router.get(RouterPath("\(base)/failed")) { request, context in
            await respond(request, context) { view in try await failed(view) }
        }
        router.get(RouterPath("\(base)/search")) { request, context in
            let query = queryFields(request)
            var before: UUID?
            if let text = query["before"], !text.isEmpty {
                guard let id = UUID(uuidString: text) else {
                    return problem(request, .badRequest, "before= must be a job id (a UUID)")
                }
                before = id
            }
            let text = query["q"]
            let filter: JobListFilter
            switch Self.listFilter(query) {
            case .success(let value): filter = value
            case .failure(let refusal): return problem(request, .badRequest, refusal.message)
            }
            return await respond(request, context) { view in
                if filter.isEmpty { return try await search(text, before: before, view) }
                return try await list(filter, text: text, view)
            }
        }
        router.get(RouterPath("\(base)/queues")) { request, context in
            await respond(request, context) { view in try await queues(view) }
        }
        router.get(RouterPath("\(base)/workers")) { request, context in
            await respond(request, context) { view in try await workers(view) }
        }
        router.get(RouterPath("\(base)/schedules")) { request, context in
            await respond(request, context) { view in try await schedules(view) }
        }
        router.get(RouterPath("\(base)/schedules/:name")) { request, context in
            guard let name = context.parameters.get("name")?.removingPercentEncoding else {
                return problem(request, .badRequest, "the schedule name in the address is not validly percent-encoded")
            }
            return await respond(request, context) { view in try await schedule(name, view) }
        }
        router.get(RouterPath("\(base)/accounts")) { request, context in
            await respond(request, context) { view in try await accounts(view) }
        }
        router.get(RouterPath("\(base)/trends")) { request, context in
            let query = queryFields(request)
            let text = query["range"].flatMap { $0.isEmpty ? nil : $0 } ?? TrendRange.hour.rawValue
            guard let range = TrendRange(rawValue: text) else {
                return problem(request, .badRequest, "range= must be one of \(TrendRange.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            let values = ["queue", "account", "provider"].map { query[$0].flatMap { $0.isEmpty ? nil : $0 } }
            if let long = zip(["queue", "account", "provider"], values).first(where: { ($0.1?.count ?? 0) > 200 }) {
                return problem(request, .badRequest, "\(long.0)= is longer than 200 characters: name one \(long.0) as the menu does")
            }
            let filter = TrendFilter(queue: values[0], account: values[1], provider: values[2])
            return await respond(request, context) { view in try await trends(range: range, filter: filter, view) }
        }
    }

    /// The live event stream and signing in and out.
    private func sessionRoutes(_ router: Router<DashboardRequestContext>) {
        router.get(RouterPath("\(base)/events")) { request, _ in events(request) }
        router.post(RouterPath("\(base)/login")) { request, context in try await login(request, context) }
        router.post(RouterPath("\(base)/logout")) { request, _ in try await logout(request) }
    }

    /// The POSTs that act on jobs, batches, failure groups, queues and schedules.
    private func actionRoutes(_ router: Router<DashboardRequestContext>) {
        router.post(RouterPath("\(base)/jobs/:id/:action")) { request, context in
            guard let id = context.parameters.get("id").flatMap(UUID.init(uuidString:)) else {
                return problem(request, .notFound, "no such job: the address must name a job id")
            }
            return try await act(request, context, action: context.parameters.get("action") ?? "", target: .job(id),
                                 back: "/jobs/\(id.uuidString.lowercased())")
        }
        router.post(RouterPath("\(base)/batches/:name/:action")) { request, context in
            guard let name = context.parameters.get("name")?.removingPercentEncoding else {
                return problem(request, .badRequest, "the batch name in the address is not validly percent-encoded")
            }
            return try await act(request, context, action: context.parameters.get("action") ?? "", target: .batch(name),
                                 back: "/batches/\(HTML.component(name))")
        }
        router.post(RouterPath("\(base)/bulk/:action")) { request, context in
            try await bulk(request, context, action: context.parameters.get("action") ?? "")
        }
        router.post(RouterPath("\(base)/failed/groups/:group/:action")) { request, context in
            try await actOnGroup(request, context, id: context.parameters.get("group") ?? "", action: context.parameters.get("action") ?? "")
        }
        router.post(RouterPath("\(base)/queues/:name/:action")) { request, context in
            guard let name = context.parameters.get("name")?.removingPercentEncoding else {
                return problem(request, .badRequest, "the queue name in the address is not validly percent-encoded")
            }
            return try await pauseOrResume(request, context, queue: name, action: context.parameters.get("action") ?? "")
        }
        router.post(RouterPath("\(base)/schedules/:name/:action")) { request, context in
            guard let name = context.parameters.get("name")?.removingPercentEncoding else {
                return problem(request, .badRequest, "the schedule name in the address is not validly percent-encoded")
            }
            return try await scheduleAction(request, context, name: name, action: context.parameters.get("action") ?? "")
        }
    }

    static let states = JobState.allCases.map(\.rawValue)

    /// What a POST may do to jobs: the appends of `ferry cancel`, `ferry retry` and `ferry discard`.
    static let jobActions = ["cancel", "retry", "discard"]

    /// Renders a page as JSON or HTML (by `Accept`), 404 when `build` finds nothing, 503 when the database fails.
    func respond(
        _ request: Request, _ context: DashboardRequestContext, _ build: (DashboardView) async throws -> DashboardPage?
    ) async -> Response {
        // A live refresh is no sign of an operator at the screen: it does not keep the session from idling out.
        let session = guardian.sessions.live(
            cookieValues(request, sessionCookieName), touch: request.headers[Self.liveRefresh] == nil)
        let loginCookie = cookieValues(request, loginCookieName).first { $0.count == 64 }
        let fresh = loginCookie == nil ? ConstantTime.randomToken() : nil
        let proxyUser = self.proxyUser(request, context)
        let csrf = proxyUser.map { guardian.csrfToken(proxyUser: $0.name) }
            ?? session.map { guardian.csrfToken(session: $0) } ?? guardian.csrfToken(loginCookie: loginCookie ?? fresh!)
        let flash = queryFields(request)["done"].flatMap(ActionResult.init(query:))?.text
        var view = DashboardView(
            base: base, readOnly: configuration.readOnly, csrf: csrf, loggedIn: proxyUser?.isOperator ?? (session != nil), flash: flash)
        view.proxyUser = proxyUser.map { ($0.name, $0.isOperator) }
        let page: DashboardPage?
        let usage = SharedReadUsage()
        do {
            page = try await SharedReadUsage.$current.withValue(usage) { try await build(view) }
        } catch {
            logger.warning("dashboard page failed", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
            return problem(request, .serviceUnavailable, "the database did not answer: \(Self.safe(error))")
        }
        guard let page else { return problem(request, .notFound, "not found") }
        var response: Response
        if wantsJSON(request) {
            response = Self.body(page.status, "application/json", page.json.jsonText + "\n")
        } else {
            let refreshAfter = usage.refreshAfter(lastChange: hub.lastChange)
            response = Self.body(page.status, "text/html; charset=utf-8", view.page(title: page.title, page.html, refreshAfter: refreshAfter))
        }
        response.headers[.cacheControl] = "no-store"
        if let fresh { response.setCookie(cookie(loginCookieName, fresh, request)) }
        return response
    }

    /// JSON for `Accept: application/json`, and for any POST with a bearer token: a script, never a browser that
    /// would follow a redirect.
    func wantsJSON(_ request: Request) -> Bool {
        (request.headers[.accept] ?? "").contains("application/json")
            || (request.method == .post && request.headers[.authorization] != nil)
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
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-store"
        // HEAD: the headers only, and no subscription that no one would ever read (or end).
        if request.method == .head { return Response(status: .ok, headers: headers) }
        let stream = hub.subscribe()
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

    static var liveRefresh: HTTPFields.Element.Name { HTTPFields.Element.Name(DashboardAssets.liveRefreshHeader)! }

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

    /// The address's query fields, decoded as browsers encode a GET form (`application/x-www-form-urlencoded`:
    /// a space as `+` or `%20`). Hummingbird's `queryParameters` leaves `+` as is, so a search for "two words"
    /// would look for "two+words".
    func queryFields(_ request: Request) -> FormFields {
        FormFields(request.uri.query ?? "")
    }

    func form(_ request: Request) async throws -> FormFields {
        var request = request
        let buffer = try await request.collectBody(upTo: 16 * 1024)
        return FormFields(String(buffer: buffer))
    }

    /// Where wrong tokens are counted: the client's address, and the browser's login cookie when it sends one.
    func throttleSources(_ request: Request, _ context: DashboardRequestContext) -> [String] {
        var sources = ["address:" + (context.remoteAddress ?? "unknown")]
        if let browser = cookieValues(request, loginCookieName).first(where: { $0.count == 64 }) { sources.append("browser:" + browser) }
        return sources
    }

    func login(_ request: Request, _ context: DashboardRequestContext) async throws -> Response {
        if configuration.readOnly { return problem(request, .forbidden, "the dashboard is read-only") }
        if let refusal = crossOriginRefusal(request) { return problem(request, .forbidden, refusal) }
        let fields = try await form(request)
        // Any of the browser's login cookies may be the one the form was rendered for (see `cookieValues`).
        let bound = cookieValues(request, loginCookieName).contains { cookie in
            fields["csrf"].map { ConstantTime.equals($0, guardian.csrfToken(loginCookie: cookie)) } ?? false
        }
        guard bound else { return problem(request, .forbidden, "missing or wrong CSRF token: reload the page and try again") }
        switch guardian.login(token: fields["token"], sources: throttleSources(request, context)) {
        case .wrongToken:
            logger.notice("dashboard login refused: wrong token", metadata: ["client": "\(context.remoteAddress ?? "unknown")"])
            return problem(request, .unauthorized, "wrong token")
        case .throttled(let seconds):
            return throttled(request, seconds)
        case .session(let session):
            logger.notice("dashboard login", metadata: ["client": "\(context.remoteAddress ?? "unknown")"])
            var response = Response(status: .seeOther, headers: [.location: base.isEmpty ? "/" : base + "/"])
            response.setCookie(cookie(sessionCookieName, session, request, maxAge: Int(configuration.sessionLifetime.components.seconds)))
            return response
        }
    }

    /// Ends the session server-side and deletes its cookie. Needs the session's CSRF token like any action, so
    /// another page cannot log the operator out.
    func logout(_ request: Request) async throws -> Response {
        if let refusal = crossOriginRefusal(request) { return problem(request, .forbidden, refusal) }
        let fields = try await form(request)
        guard let session = guardian.sessions.live(cookieValues(request, sessionCookieName), touch: false) else {
            return problem(request, .unauthorized, "not logged in (or the session already ended)")
        }
        guard let field = fields["csrf"], ConstantTime.equals(field, guardian.csrfToken(session: session)) else {
            return problem(request, .forbidden, "missing or wrong CSRF token: reload the page and try again")
        }
        guardian.sessions.remove(session)
        logger.notice("dashboard logout")
        var response = Response(status: .seeOther, headers: [.location: base.isEmpty ? "/" : base + "/"])
        response.setCookie(cookie(sessionCookieName, "", request, maxAge: 0))
        return response
    }

    /// Checks that a POST may act: not read-only, same origin, and a bearer token or a live session with its CSRF
    /// field. Answers the refusal, or nil with the form's fields.
    func authorize(
        _ request: Request, _ context: DashboardRequestContext, action: String
    ) async throws -> (refusal: Response?, fields: FormFields) {
        let none = FormFields("")
        if configuration.readOnly { return (problem(request, .forbidden, "the dashboard is read-only"), none) }
        if let refusal = crossOriginRefusal(request) {
            logger.notice("dashboard action refused: cross-origin", metadata: ["action": "\(action)"])
            return (problem(request, .forbidden, refusal), none)
        }
        let fields = try await form(request)
        let verdict = guardian.check(
            authorization: request.headers[.authorization], proxyUser: proxyUser(request, context),
            sessionCookies: cookieValues(request, sessionCookieName), csrfField: fields["csrf"], sources: throttleSources(request, context))
        switch verdict {
        case .allowed: return (nil, fields)
        case .unauthenticated(let reason): return (problem(request, .unauthorized, reason), fields)
        case .forbidden(let reason): return (problem(request, .forbidden, reason), fields)
        case .throttled(let seconds): return (throttled(request, seconds), fields)
        }
    }

    /// Cancel, retry or discard through FerryStore (the same event appends as `ferry cancel` / `retry` / `discard`).
    func act(
        _ request: Request, _ context: DashboardRequestContext, action: String, target: FerryStore.JobFilter, back: String
    ) async throws -> Response {
        guard Self.jobActions.contains(action) else { return problem(request, .notFound, "unknown action \(action)") }
        let (refusal, fields) = try await authorize(request, context, action: action)
        if let refusal { return refusal }
        if Self.asksFirst(target) {
            let what = if case .batch(let name) = target { "of batch “\(name)”" } else { "" }
            if let answer = await confirmation(request, fields: fields, action: action, target: target, what: what, back: back) {
                return answer
            }
        }
        return await perform(request, action: action, target: target, back: back, fields: fields)
    }

    /// Retries or discards every failed job of a group of failures (`FailureSignature`): one `requeued` or
    /// `discarded` append per job, the same call and rules as `ferry retry` / `ferry discard`.
    func actOnGroup(_ request: Request, _ context: DashboardRequestContext, id: String, action: String) async throws -> Response {
        guard action == "retry" || action == "discard" else { return problem(request, .notFound, "unknown action \(action)") }
        let (refusal, fields) = try await authorize(request, context, action: action + " group")
        if let refusal { return refusal }
        let group: FailureGroup?
        do {
            group = try await failureGroup(id)
        } catch {
            logger.warning("dashboard action failed", metadata: ["action": "\(action) group", "error": "\(error)"])
            return problem(request, .serviceUnavailable, "the database did not answer: \(Self.safe(error))")
        }
        guard let group else { return problem(request, .notFound, "no such group of failures (retried or discarded already?)") }
        if let answer = await confirmation(
            request, fields: fields, action: action, target: .jobs(group.jobIDs), what: "of the group “\(group.signature.text)”", back: "/failed")
        {
            return answer
        }
        return await perform(request, action: action, target: .jobs(group.jobIDs), back: "/failed", fields: fields)
    }

    /// Pauses or resumes a queue (`ferry queue pause|resume`: one append to `ferry.queue_events`), with the form's
    /// `reason` for a pause. A queue that is not known is refused, as the CLI refuses it without `--create`.
    func pauseOrResume(_ request: Request, _ context: DashboardRequestContext, queue: String, action: String) async throws -> Response {
        guard action == "pause" || action == "resume" else { return problem(request, .notFound, "unknown action \(action)") }
        let (refusal, fields) = try await authorize(request, context, action: action)
        if let refusal { return refusal }
        guard JobLimits.isValidQueueName(queue) else { return problem(request, .notFound, "no queue '\(queue)'") }
        let reason = fields["reason"].map { String($0.trimmingCharacters(in: .whitespacesAndNewlines).prefix(200)) }.flatMap { $0.isEmpty ? nil : $0 }
        let changed: Bool
        do {
            guard try await store.queueIsKnown(queue) else {
                return problem(request, .notFound, "no queue '\(queue)': it has no jobs, no worker serves it and it was never paused")
            }
            changed = try await store.setQueuePaused(queue, paused: action == "pause", reason: reason, by: "ferry dashboard")
        } catch {
            logger.warning("dashboard action failed", metadata: ["action": "\(action)", "error": "\(error)"])
            return problem(request, .serviceUnavailable, "the database did not answer: \(Self.safe(error))")
        }
        shared.clear()
        logger.notice("dashboard action", metadata: ["action": "\(action)", "queue": "\(queue)", "changed": "\(changed)"])
        if wantsJSON(request) {
            let json = JSONValue.object(["queue": .string(queue), "paused": .bool(action == "pause"), "changed": .bool(changed)])
            return Self.body(.ok, "application/json", json.jsonText + "\n")
        }
        return Response(status: .seeOther, headers: [.location: base + "/queues"])
    }

    /// Runs an authorized cancel, retry or discard and answers its outcomes (JSON) or a redirect back (browsers).
    /// Named jobs (one, a selection, a group) are each listed, unchanged ones with their state; a batch or a filter
    /// lists only the jobs that changed: nothing to retry is an empty list.
    /// A retry's form may carry `options` (``retryOptions(_:)``): provider options the retry changes, as
    /// `ferry retry --option`; refused (422, nothing retried) when a value or a job's provider refuses them.
    func perform(_ request: Request, action: String, target: FerryStore.JobFilter, back: String, fields: FormFields) async -> Response {
        let outcomes: [CommandOutcome]
        do {
            switch action {
            case "cancel": outcomes = try await store.cancel(target, requestedBy: "ferry dashboard")
            case "discard": outcomes = try await store.discard(target, requestedBy: "ferry dashboard")
            default:
                let options = try retryOptions(fields)
                outcomes = try await store.retry(target, requestedBy: "ferry dashboard", options: options)
            }
        } catch let issue as ValidationIssue {
            return problem(request, .unprocessableContent, "\(issue); nothing was retried")
        } catch let error as FerryStoreError where error.code == .notFound {
            return problem(request, .notFound, "\(error)")
        } catch {
            logger.warning("dashboard action failed", metadata: ["action": "\(action)", "error": "\(error)"])
            return problem(request, .serviceUnavailable, "the database did not answer: \(Self.safe(error))")
        }
        shared.clear()
        logger.notice("dashboard action", metadata: ["action": "\(action)", "target": "\(target)", "jobs": "\(outcomes.count)"])
        let result = ActionResult(outcomes)
        if wantsJSON(request) {
            let items = outcomes.map { outcome -> JSONValue in
                .object([
                    "job_id": .string(outcome.jobID.uuidString.lowercased()), "action": .string(outcome.action.rawValue),
                    "state": outcome.state.map { .string($0) } ?? .null,
                ])
            }
            let counts = JSONValue.object(Dictionary(uniqueKeysWithValues: result.counts.map { ($0.key.rawValue, JSONValue.int(Int64($0.value))) }))
            let json = JSONValue.object(["result": .string(result.text), "counts": counts, "jobs": .array(items)])
            return Self.body(.ok, "application/json", json.jsonText + "\n")
        }
        // The page the browser goes back to says what was done (see `ActionResult`).
        let done = result.query.isEmpty ? "" : (back.contains("?") ? "&" : "?") + "done=" + result.query
        return Response(status: .seeOther, headers: [.location: base + back + done])
    }
}
