import Foundation

/// Sign-in by a proxy in front of the dashboard (oauth2-proxy and the like, `ferry dashboard
/// --auth-proxy-header`): the proxy authenticates the user and names them in a header; the dashboard believes that
/// header only from the proxies' own addresses, so nobody who reaches the dashboard directly can name themselves.
/// Users named as operators act; everyone else the proxy lets in reads.
public struct AuthProxy: Sendable {
    /// A user the proxy signed in.
    struct User: Sendable, Equatable {
        let name: String
        let isOperator: Bool
    }

    /// The request header naming the user, e.g. `X-Forwarded-User` or `X-Auth-Request-Email`.
    public let header: String
    /// Where the proxy connects from: addresses or networks (`10.0.0.0/8`, `::1`).
    public let trusted: [IPNetwork]
    /// Users who may act; the others only read.
    public let operators: Set<String>

    public init(header: String, trusted: [IPNetwork], operators: Set<String>) {
        self.header = header
        self.trusted = trusted
        self.operators = operators
    }

    /// Longest user name taken from the header: a name is shown on every page and written to the log.
    static let maximumNameBytes = 256

    /// The user `value` names, when the request came from a trusted proxy (`peer`) and the value is a plausible
    /// name: 1 to 256 bytes of UTF-8 without control characters. Nil otherwise: the request is anonymous.
    func user(headerValue value: String?, peer: String?) -> User? {
        guard let peer, trusted.contains(where: { $0.contains(peer) }) else { return nil }
        guard let name = value?.trimmingCharacters(in: .whitespaces), !name.isEmpty, name.utf8.count <= Self.maximumNameBytes,
            !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0.properties.generalCategory == .format })
        else { return nil }
        return User(name: name, isOperator: operators.contains(name))
    }
}
