#if canImport(Glibc)
    import Glibc
#endif

/// An IPv4 or IPv6 address, or a network of them (`10.0.0.0/8`, `fd00::/8`), as `--trusted-proxy` names it.
public struct IPNetwork: Sendable, Equatable, CustomStringConvertible {
    let bytes: [UInt8]
    let prefix: Int

    /// Parses `ADDRESS` or `ADDRESS/BITS`; nil when it is neither.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard let bytes = Self.address(parts[0]) else { return nil }
        let bits = bytes.count * 8
        if parts.count == 2 {
            guard let prefix = Int(parts[1]), (0...bits).contains(prefix), parts[1].allSatisfy(\.isNumber) else { return nil }
            self.prefix = prefix
        } else {
            self.prefix = bits
        }
        self.bytes = bytes
    }

    public var description: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        var copy = bytes
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        _ = inet_ntop(family, &copy, &text, socklen_t(text.count))
        let address = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return prefix == bytes.count * 8 ? address : "\(address)/\(prefix)"
    }

    /// Whether `address` (as a socket reports it) lies in this network. An IPv4-mapped IPv6 address
    /// (`::ffff:10.0.0.1`) counts as its IPv4 address.
    func contains(_ address: String) -> Bool {
        guard var other = Self.address(address) else { return false }
        if other.count == 16, bytes.count == 4, other.prefix(12) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff] {
            other = Array(other.suffix(4))
        }
        guard other.count == bytes.count else { return false }
        var left = prefix
        for (mine, theirs) in zip(bytes, other) where left > 0 {
            let mask: UInt8 = left >= 8 ? 0xff : ~(0xff >> UInt8(left))
            guard mine & mask == theirs & mask else { return false }
            left -= 8
        }
        return true
    }

    private static func address(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }
}
