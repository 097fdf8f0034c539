/// How `ferry dashboard` serves: where, under which path, and whether actions are allowed.
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

    public init(host: String, port: Int, basePath: String, readOnly: Bool, token: String?) {
        self.host = host
        self.port = port
        self.basePath = basePath
        self.readOnly = readOnly
        self.token = token
    }
}
