import AsyncHTTPClient
import FerryDashboard
import FerryProviders
import FerryStore
import FerryTestSupport
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle

/// A dashboard and an HTTP client over loopback (no redirects followed, cookies by hand): a real `ferry dashboard`
/// process (`with`, for what only the command shows: its flags, exit codes, signals, connection options), or the
/// same `Dashboard` served in the test's process on a free loopback port (`inProcess`, for pages, actions and
/// security, whose proof is in the HTTP answers and the database).
final class DashboardProbe: @unchecked Sendable {
    /// The command's process; nil in process.
    let process: BackgroundProcess!
    /// The dashboard served in process, and its store.
    private let served: (group: ServiceGroup, running: Task<Void, any Error>, store: FerryStore)?
    let root: String
    /// Made last in `init`: a client that exists must be shut down, so none is made for a dashboard that failed.
    let http: HTTPClient

    struct Answer {
        var status: Int
        var body: String
        var headers: HTTPHeaders
        var json: Any? { try? JSONSerialization.jsonObject(with: Data(body.utf8)) }
        /// `name=value` of each Set-Cookie.
        var cookies: [String: String] {
            var out = [String: String]()
            for line in headers["set-cookie"] {
                let pair = line.split(separator: ";")[0].split(separator: "=", maxSplits: 1)
                if pair.count == 2 { out[String(pair[0])] = String(pair[1]) }
            }
            return out
        }
    }

    /// Starts `ferry dashboard --listen 127.0.0.1:0 --base-path /ferry` plus `arguments`; waits for its address.
    init(_ db: TestDatabase, _ arguments: [String], environment: [String: String] = [:]) async throws {
        let process = try BackgroundProcess(
            ferry: ["dashboard", "--listen", "127.0.0.1:0", "--base-path", "/ferry"] + arguments, databaseURL: db.url,
            environment: environment)
        self.process = process
        var url: String?
        try await eventually(timeout: .seconds(300), "the dashboard's address in its output") {
            if !process.isRunning { throw TestSupportError("dashboard exited: \(process.log)") }
            for line in process.log.split(separator: "\n") where line.hasPrefix("ferry dashboard listening on ") {
                url = String(line.dropFirst("ferry dashboard listening on ".count))
            }
            return url != nil
        }
        root = String(url!.dropLast())  // "http://127.0.0.1:PORT/ferry"
        served = nil
        http = Self.client()
    }

    /// Serves `Dashboard` in process as `ferry dashboard --listen 127.0.0.1:0 --base-path /ferry` with these settings
    /// would (`token` is `FERRY_DASHBOARD_TOKEN`; none when read-only), on a store of its own.
    init(
        inProcess db: TestDatabase, readOnly: Bool, token: String?, secureCookies: Bool, sharedReadAge: Duration,
        sessionIdleTimeout: Duration, sessionLifetime: Duration
    ) async throws {
        let store = db.store(poolSize: 4)
        let logger = Logger(label: "ferry.test.dashboard", factory: { _ in SwiftLogNoOpLogHandler() })
        let port = PortPromise()
        let dashboard = Dashboard(
            configuration: DashboardConfiguration(
                host: "127.0.0.1", port: 0, basePath: "/ferry", readOnly: readOnly, token: readOnly ? nil : token, secureCookies: secureCookies,
                sessionIdleTimeout: sessionIdleTimeout, sessionLifetime: sessionLifetime, sharedReadAge: sharedReadAge),
            store: store, providers: .standard, logger: logger, onListening: { port.fulfil($0) })
        let group = ServiceGroup(services: [dashboard], logger: logger)
        let running = Task { try await group.run() }
        do {
            root = "http://127.0.0.1:\(try await port.value(timeout: .seconds(300)))/ferry"
        } catch {
            await group.triggerGracefulShutdown()
            _ = try? await running.value
            store.client.close()
            throw error
        }
        process = nil
        served = (group, running, store)
        http = Self.client()
    }

    private static func client() -> HTTPClient {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        // Event streams hold their connection: allow more than the default 8 per host.
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// Serves a dashboard in process, runs `body`, and stops both whether `body` throws or not.
    static func inProcess<T>(
        _ db: TestDatabase, readOnly: Bool = false, token: String? = nil, secureCookies: Bool = false,
        sharedReadAge: Duration = .seconds(1), sessionIdleTimeout: Duration = .seconds(3600), sessionLifetime: Duration = .seconds(43200),
        _ body: (DashboardProbe) async throws -> T
    ) async throws -> T {
        let probe = try await DashboardProbe(
            inProcess: db, readOnly: readOnly, token: token, secureCookies: secureCookies, sharedReadAge: sharedReadAge,
            sessionIdleTimeout: sessionIdleTimeout, sessionLifetime: sessionLifetime)
        return try await probe.using(body)
    }

    /// Starts a dashboard, runs `body`, and stops both the client and the process whether `body` throws or not.
    static func with<T>(
        _ db: TestDatabase, _ arguments: [String], environment: [String: String] = [:], _ body: (DashboardProbe) async throws -> T
    ) async throws -> T {
        let probe = try await DashboardProbe(db, arguments, environment: environment)
        return try await probe.using(body)
    }

    /// Runs `body` with this probe, then shuts it down whether `body` throws or not.
    private func using<T>(_ body: (DashboardProbe) async throws -> T) async throws -> T {
        do {
            let result = try await body(self)
            try await shutdown()
            return result
        } catch {
            try? await shutdown()
            throw error
        }
    }

    func shutdown() async throws {
        try await http.shutdown()
        if let served {
            await served.group.triggerGracefulShutdown()
            _ = try? await served.running.value
            served.store.client.close()
        } else {
            process.signal(SIGTERM)
            _ = try? await process.waitForExit(timeout: .seconds(20))
        }
    }

    func request(
        _ method: HTTPMethod, _ path: String, json: Bool = false, cookies: [String: String] = [:], form: [String: String]? = nil,
        pairs: [(String, String)]? = nil, headers extra: [String: String] = [:]
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: root + path)
        request.method = method
        if json { request.headers.add(name: "Accept", value: "application/json") }
        if !cookies.isEmpty {
            request.headers.add(name: "Cookie", value: cookies.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; "))
        }
        for (name, value) in extra { request.headers.add(name: name, value: value) }
        // A form as a dictionary, or as pairs when a name repeats (a bulk action's job=ID fields).
        if let fields = form.map({ $0.map { ($0.key, $0.value) } }) ?? pairs {
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            let text = fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }
                .joined(separator: "&")
            request.body = .bytes(ByteBuffer(string: text))
        }
        let response = try await http.execute(request, timeout: .seconds(300))
        let body = try await response.body.collect(upTo: 16 << 20)
        return Answer(status: Int(response.status.code), body: String(buffer: body), headers: response.headers)
    }

    func get(_ path: String, json: Bool = false, cookies: [String: String] = [:]) async throws -> Answer {
        try await request(.GET, path, json: json, cookies: cookies)
    }

    /// A browser: its cookies and the CSRF token its pages' forms carry.
    struct Browser {
        var cookies: [String: String]
        var csrf: String
    }

    /// The `csrf` field of a page's forms.
    static func csrfField(_ html: String) -> String? {
        guard let range = html.range(of: #"name="csrf" value="[0-9a-f]{64}""#, options: .regularExpression) else { return nil }
        return String(html[range].dropLast().suffix(64))
    }

    /// A browser that has opened the overview: its login cookie and the login form's CSRF token.
    func visit() async throws -> Browser {
        let page = try await get("/")
        guard let cookie = page.cookies["ferry_csrf"], let csrf = Self.csrfField(page.body) else {
            throw TestSupportError("no login cookie or CSRF field on the overview")
        }
        return Browser(cookies: ["ferry_csrf": cookie], csrf: csrf)
    }

    /// A logged-in browser: its login and session cookies, and the session's CSRF token (from a page).
    func login(token: String) async throws -> Browser {
        let visitor = try await visit()
        let answer = try await request(.POST, "/login", cookies: visitor.cookies, form: ["csrf": visitor.csrf, "token": token])
        guard answer.status == 303, let session = answer.cookies["ferry_session"] else {
            throw TestSupportError("login answered \(answer.status): \(answer.body)")
        }
        let cookies = visitor.cookies.merging(["ferry_session": session]) { $1 }
        guard let csrf = Self.csrfField(try await get("/", cookies: cookies).body) else {
            throw TestSupportError("no CSRF field on the overview after logging in")
        }
        return Browser(cookies: cookies, csrf: csrf)
    }
}
