/// How `ferry dashboard` serves: where, under which path, whether actions are allowed, and how browser sessions
/// behave.
public struct DashboardConfiguration: Sendable {
    /// Host to bind (loopback by default).
    public var host: String
    /// Port to bind; 0 lets the kernel choose (the real one is logged).
    public var port: Int
    /// Path prefix behind a reverse proxy, without a trailing slash ("" for none), e.g. "/ferry".
    public var basePath: String
    /// No action buttons, every POST refused with 403.
    public var readOnly: Bool
    /// The secret actions need; `nil` with `readOnly == false` is refused by the command.
    public var token: String?
    /// Browsers reach the dashboard over HTTPS (a TLS-terminating proxy in front): cookies are `__Host-` prefixed,
    /// `Secure` and scoped to `/`, and the dashboard's own origin is `https://`.
    public var secureCookies: Bool
    /// A session unused this long ends.
    public var sessionIdleTimeout: Duration
    /// A session ends this long after its log-in, however busy.
    public var sessionLifetime: Duration
    /// How long the reads every viewer shares (queue and batch summaries, throughput, workers) are kept at least:
    /// however many viewers, each is read once per this interval (longer when a read is slow).
    public var sharedReadAge: Duration
    /// Sign-in by a proxy in front (`--auth-proxy-header`): its users read, its operators act. The token, when
    /// set too, still works for scripts and browsers that log in with it.
    public var authProxy: AuthProxy?

    public init(
        host: String, port: Int, basePath: String, readOnly: Bool, token: String?, secureCookies: Bool = false,
        sessionIdleTimeout: Duration = .seconds(3600), sessionLifetime: Duration = .seconds(12 * 3600), sharedReadAge: Duration = .seconds(1),
        authProxy: AuthProxy? = nil
    ) {
        self.authProxy = authProxy
        self.host = host
        self.port = port
        self.basePath = basePath
        self.readOnly = readOnly
        self.token = token
        self.secureCookies = secureCookies
        self.sessionIdleTimeout = sessionIdleTimeout
        self.sessionLifetime = sessionLifetime
        self.sharedReadAge = sharedReadAge
    }
}
