import FerryDashboard

extension DashboardCommand {
    /// `--auth-proxy-header`, `--trusted-proxy` and `--operator` checked together: nil without a header; a header
    /// without a trusted address, a malformed address or header name, or operators without a header are refused.
    func authProxy() throws -> AuthProxy? {
        guard let header = authProxyHeader else {
            guard trustedProxies.isEmpty, operators.isEmpty else {
                throw CLIUsageError(message: "--trusted-proxy and --operator go with --auth-proxy-header NAME (the header your sign-in proxy sets)")
            }
            return nil
        }
        let token = Set("!#$%&'*+-.^_`|~abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        guard (1...128).contains(header.count), header.allSatisfy({ token.contains($0) }) else {
            throw CLIUsageError(message: "--auth-proxy-header must be an HTTP header name such as X-Forwarded-Email, not \(header.debugDescription)")
        }
        guard header.lowercased() != "authorization", header.lowercased() != "cookie" else {
            throw CLIUsageError(message: "--auth-proxy-header cannot be \(header): name the header that carries the user, such as X-Forwarded-User")
        }
        guard !trustedProxies.isEmpty else {
            throw CLIUsageError(
                message: "--auth-proxy-header needs --trusted-proxy ADDRESS (the address your sign-in proxy connects from, e.g. 127.0.0.1): anyone else could name themselves")
        }
        let networks = try trustedProxies.map { text -> IPNetwork in
            guard let network = IPNetwork(text) else {
                throw CLIUsageError(message: "--trusted-proxy \(text.debugDescription) is not an IP address or network (for example 127.0.0.1, 10.0.0.0/8, ::1)")
            }
            return network
        }
        for name in operators where name.isEmpty || name.utf8.count > 256 || name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw CLIUsageError(message: "--operator \(name.debugDescription) is not a user name (1 to 256 printable characters, as the proxy sends it)")
        }
        return AuthProxy(header: header, trusted: networks, operators: Set(operators))
    }
}
