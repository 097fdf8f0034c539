import Hummingbird

extension Dashboard {
    /// The user the sign-in proxy names in its header, when the request came from a trusted proxy; nil without
    /// `--auth-proxy-header`, from any other address, or for a malformed name.
    func proxyUser(_ request: Request, _ context: DashboardRequestContext) -> AuthProxy.User? {
        guard let proxy = configuration.authProxy, let name = HTTPFields.Element.Name(proxy.header) else { return nil }
        let values = request.headers[values: name]
        // Two values (the proxy's and one the client sent along) name nobody: which one is the proxy's is unknown.
        guard values.count == 1 else { return nil }
        return proxy.user(headerValue: values[0], peer: context.remoteAddress)
    }
}
