import ArgumentParser
import FerryDashboard
import FerryWorker
import Foundation
import Logging
import ServiceLifecycle

struct DashboardCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dashboard",
        abstract: "Serve a live web dashboard of queues, batches, jobs, failures and workers.",
        discussion: """
            Pages are server-rendered and live (Server-Sent Events fed by one shared LISTEN connection); every \
            page also answers `Accept: application/json` with the same data. The dashboard binds to loopback \
            unless --listen says otherwise, and uses at most \(poolSize) pooled database connections plus one \
            listener whatever the number of viewers.

            Actions (cancel, retry) need a token: $FERRY_DASHBOARD_TOKEN or --token-file. Browsers log in with \
            it (a session cookie that ends after --session-idle-timeout without use, --session-lifetime after \
            log-in, or at Log out); scripts send `Authorization: Bearer TOKEN`. Every action is a POST; a POST \
            from another origin (Origin, Sec-Fetch-Site) is refused, and browser POSTs carry a CSRF token bound \
            to their session. Wrong tokens are throttled per client address; the right token always works. \
            Behind an HTTPS proxy, give --secure-cookies. With --read-only there are no action buttons and every \
            POST is refused. Connect as a ferry_reader role for read-only, ferry_producer for actions.

            Behind a sign-in proxy (oauth2-proxy and the like), --auth-proxy-header names the header the proxy \
            puts the signed-in user in; it is believed only from the --trusted-proxy addresses (the header from \
            anywhere else, or given twice, names nobody). Users named with --operator act; every other user the \
            proxy lets in reads, without buttons. The token is then optional (scripts may still use it).

            A read-only dashboard may run entirely on a hot standby: --read-database-url (or \
            $FERRY_READ_DATABASE_URL). The standby refuses LISTEN, so pages follow the event log read once a \
            second (said once in the log) and show what the primary did after the replication lag. A dashboard \
            with actions refuses a read URL: its actions write to the primary, and the pages it shows after them \
            would not show their effect until the standby caught up.

            Examples:
              ferry dashboard --read-only
              ferry dashboard --read-only --read-database-url postgresql://standby/ferry
              FERRY_DASHBOARD_TOKEN=$(cat token) ferry dashboard \\
                  --listen 127.0.0.1:8080 --base-path /ferry
              ferry dashboard --token-file /etc/ferry/dashboard-token
              ferry dashboard --token-file /etc/ferry/dashboard-token --secure-cookies \\
                  --session-idle-timeout 900 --session-lifetime 28800
              ferry dashboard --auth-proxy-header X-Forwarded-Email \\
                  --trusted-proxy 127.0.0.1 --operator alice@example.com
              curl -H 'Accept: application/json' http://127.0.0.1:8080/ferry/batches
            """)

    static let poolSize = 4

    @Option(help: ArgumentHelp("Address to serve on, HOST:PORT (port 0 picks a free one and prints it).", valueName: "host:port"))
    var listen = "127.0.0.1:8080"

    @Option(name: .customLong("base-path"), help: ArgumentHelp("Path prefix behind a reverse proxy, e.g. /ferry.", valueName: "path"))
    var basePath = ""

    @Flag(name: .customLong("read-only"), help: "No actions: no buttons, every POST refused.")
    var readOnly = false

    @Option(name: .customLong("token-file"), help: ArgumentHelp("File holding the token actions need (else $FERRY_DASHBOARD_TOKEN).", valueName: "file"),
        completion: .file())
    var tokenFile: String?

    @Flag(name: .customLong("secure-cookies"), help: ArgumentHelp(
        "Browsers reach the dashboard over HTTPS (a TLS proxy in front): __Host- cookies, Secure, path /; origin https."))
    var secureCookies = false

    @Option(name: .customLong("session-idle-timeout"), help: ArgumentHelp("Seconds without use after which a browser session ends.", valueName: "s"))
    var sessionIdleTimeout = 3600

    @Option(name: .customLong("session-lifetime"), help: ArgumentHelp("Seconds after log-in at which a browser session ends, however busy.", valueName: "s"))
    var sessionLifetime = 43200

    @Option(name: .customLong("shared-read-age"), help: ArgumentHelp(
        "Seconds the summaries every viewer shares are kept (0.1-60): one read per interval however many viewers.", valueName: "s"))
    var sharedReadAge = 1.0

    @Option(name: .customLong("auth-proxy-header"), help: ArgumentHelp(
        "Header in which a sign-in proxy in front names the user (e.g. X-Forwarded-Email); needs --trusted-proxy.", valueName: "name"))
    var authProxyHeader: String?

    @Option(name: .customLong("trusted-proxy"), help: ArgumentHelp(
        "Address or network the sign-in proxy connects from (127.0.0.1, 10.0.0.0/8, ::1); repeatable.", valueName: "address"))
    var trustedProxies: [String] = []

    @Option(name: .customLong("operator"), help: ArgumentHelp(
        "A user the sign-in proxy names who may act (cancel, retry, discard, pause); repeatable. Others only read.", valueName: "user"))
    var operators: [String] = []

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var reads: ReadConnectionOptions

    func run() async throws {
        try await runReporting {
            guard let address = ListenAddress(listen) else {
                throw CLIUsageError(message: "--listen must be HOST:PORT (for example 127.0.0.1:8080), not \(listen)")
            }
            let base = try Self.normalizedBasePath(basePath)
            guard sessionIdleTimeout > 0, sessionLifetime > 0 else {
                throw CLIUsageError(message: "--session-idle-timeout and --session-lifetime must be positive seconds (for example 3600 and 43200)")
            }
            guard sharedReadAge >= 0.1, sharedReadAge <= 60 else {
                throw CLIUsageError(message: "--shared-read-age must be between 0.1 and 60 seconds (for example 1, the default), not \(sharedReadAge)")
            }
            if !readOnly, reads.resolvedReadDatabaseURL != nil {
                throw CLIUsageError(
                    message: "\(reads.source) is for a --read-only dashboard: actions write to the primary, and a dashboard reading a standby would not show their effect until the standby caught up; run a --read-only dashboard on the standby and one with actions on --database-url")
            }
            let proxy = try authProxy()
            let tokenOptional = proxy != nil && tokenFile == nil && ProcessInfo.processInfo.environment["FERRY_DASHBOARD_TOKEN"] == nil
            let token = try readOnly || tokenOptional ? nil : Self.token(file: tokenFile)
            // Read-only, everything it does is a read: all of it may go to the read URL (a standby).
            let store = reads.makeStore(connection, poolSize: Self.poolSize, applicationName: "ferry dashboard")
            defer { store.client.close() }
            // Fail now, with the usual exit codes, if the database is unreachable or not migrated.
            _ = try await store.reads.queueStats()
            let logger = Logger(label: "ferry.dashboard")
            let dashboard = Dashboard(
                configuration: DashboardConfiguration(
                    host: address.host, port: address.port, basePath: base, readOnly: readOnly, token: token,
                    secureCookies: secureCookies, sessionIdleTimeout: .seconds(sessionIdleTimeout),
                    sessionLifetime: .seconds(sessionLifetime), sharedReadAge: .milliseconds(Int64(sharedReadAge * 1000)),
                    authProxy: proxy),
                store: store, providers: .standard, logger: logger)
            let group = ServiceGroup(
                configuration: ServiceGroupConfiguration(
                    services: [.init(service: dashboard)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
            try await group.run()
        }
    }

    /// "/ferry/" → "/ferry", "/" → "": a leading slash, no trailing one, segments of unreserved URL characters
    /// only. Dot segments are refused: browsers and proxies resolve them, so links would leave the prefix.
    static func normalizedBasePath(_ text: String) throws -> String {
        var path = text
        while path.hasSuffix("/") { path.removeLast() }
        guard !path.isEmpty else { return "" }
        let example = "for example --base-path /ferry or /ops/ferry"
        guard path.hasPrefix("/") else {
            throw CLIUsageError(message: "--base-path must start with /: give /\(path), not \(text)")
        }
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        for segment in path.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            if segment.isEmpty {
                throw CLIUsageError(message: "--base-path \(text) has an empty segment (//): \(example)")
            }
            if segment == "." || segment == ".." {
                throw CLIUsageError(message: "--base-path \(text) has a \(segment) segment, which browsers and proxies resolve away: name the folder, \(example)")
            }
            if let bad = segment.first(where: { !allowed.contains($0) }) {
                throw CLIUsageError(
                    message: "--base-path \(text) holds \"\(bad)\": only letters, digits, - . _ ~ and / may appear (no percent-encoding), \(example)")
            }
        }
        return path
    }

    static func token(file: String?) throws -> String {
        var token: String?
        if let file {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                throw CLIUsageError(message: "cannot read --token-file \(file)")
            }
            token = text.trimmingCharacters(in: .whitespacesAndNewlines)
        } else {
            token = ProcessInfo.processInfo.environment["FERRY_DASHBOARD_TOKEN"]?.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        guard let token, !token.isEmpty else {
            throw CLIUsageError(
                message: "actions need a token: set FERRY_DASHBOARD_TOKEN or give --token-file FILE, or run with --read-only")
        }
        guard token.count >= 16 else {
            throw CLIUsageError(message: "the dashboard token must be at least 16 characters (for example: openssl rand -hex 32)")
        }
        return token
    }
}
