/// A host and TCP port to listen on, as `--metrics-listen` takes it: `127.0.0.1:9464`, `[::1]:9464`,
/// `0.0.0.0:9464` (every IPv4 interface), `:9464` (the same) or `localhost:0` (any free port).
public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT`; an IPv6 host goes in brackets. Nil when the text is not of that form.
    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65535).contains(port)
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("[") {
            guard host.hasSuffix("]"), host.count > 2 else { return nil }
            host = String(host.dropFirst().dropLast())
        } else if host.contains(":") {
            return nil  // an IPv6 address without brackets: where the port starts is ambiguous
        }
        if host.isEmpty { host = "0.0.0.0" }
        guard !host.contains(where: { $0 == " " || $0 == "/" }) else { return nil }
        self.init(host: host, port: port)
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
