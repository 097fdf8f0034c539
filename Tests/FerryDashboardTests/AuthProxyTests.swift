import FerryTestSupport
@testable import FerryDashboard
import Testing

/// Who the sign-in proxy says a request is from: believed only from a trusted address, never for a malformed name.
@Suite("dashboard sign-in proxy", .tags(.fast))
struct AuthProxyTests {
    @Test("trusted addresses and networks, IPv4 and IPv6, IPv4-mapped IPv6; anything else is not one")
    func networks() throws {
        let loopback = try #require(IPNetwork("127.0.0.1"))
        #expect(loopback.contains("127.0.0.1") && !loopback.contains("127.0.0.2") && loopback.contains("::ffff:127.0.0.1"))
        let private10 = try #require(IPNetwork("10.0.0.0/8"))
        #expect(private10.contains("10.200.3.4") && !private10.contains("11.0.0.1") && !private10.contains("::1"))
        let odd = try #require(IPNetwork("192.168.1.128/25"))
        #expect(odd.contains("192.168.1.200") && !odd.contains("192.168.1.100"))
        let six = try #require(IPNetwork("fd00::/8"))
        #expect(six.contains("fd12::1") && !six.contains("fe80::1") && !six.contains("10.0.0.1"))
        #expect(try #require(IPNetwork("0.0.0.0/0")).contains("8.8.8.8"))
        for bad in ["", "localhost", "10.0.0.0/33", "10.0.0.0/-1", "10.0.0.0/8/8", "::1/129", "10.0.0.0/ 8", "1.2.3"] {
            #expect(IPNetwork(bad) == nil, "\(bad)")
        }
        #expect(private10.description == "10.0.0.0/8" && loopback.description == "127.0.0.1")
    }

    @Test("a name from an untrusted peer, an empty, long or control-character name names nobody; operators act")
    func users() throws {
        let proxy = AuthProxy(header: "X-User", trusted: [try #require(IPNetwork("127.0.0.1"))], operators: ["alice"])
        #expect(proxy.user(headerValue: "alice", peer: "127.0.0.1") == AuthProxy.User(name: "alice", isOperator: true))
        #expect(proxy.user(headerValue: " bob ", peer: "127.0.0.1") == AuthProxy.User(name: "bob", isOperator: false))
        #expect(proxy.user(headerValue: "alice", peer: "10.0.0.1") == nil, "not from the proxy: anyone could send the header")
        #expect(proxy.user(headerValue: "alice", peer: nil) == nil)
        for hostile in ["", "   ", String(repeating: "a", count: 257), "eve\u{1b}[31m", "eve\nadmin", "eve\u{202e}nimda"] {
            #expect(proxy.user(headerValue: hostile, peer: "127.0.0.1") == nil, "\(hostile.debugDescription)")
        }
        #expect(proxy.user(headerValue: String(repeating: "é", count: 128), peer: "127.0.0.1")?.name.utf8.count == 256)
    }
}
