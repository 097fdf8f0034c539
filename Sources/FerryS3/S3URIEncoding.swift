/// Percent-encoding as SigV4 and S3 define it (RFC 3986 unreserved characters kept, every other
/// UTF-8 byte as `%XX` with upper-case hex), used for both the request URL and the canonical request
/// so the two always agree.
enum S3URIEncoding {
    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// Encodes `text`; with `keepSlash`, `/` stays as is (object keys in paths). S3 neither
    /// normalizes paths nor double-encodes them, so `a//b/../c` is sent and signed literally.
    static func encode(_ text: String, keepSlash: Bool) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if isUnreserved(byte) || (keepSlash && byte == UInt8(ascii: "/")) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `A-Z a-z 0-9 - . _ ~`.
    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    /// The canonical query string: each name and value encoded (an absent value as empty), pairs
    /// sorted by encoded name, then encoded value, joined with `&`.
    static func canonicalQuery(_ items: [(name: String, value: String)]) -> String {
        items
            .map { (encode($0.name, keepSlash: false), encode($0.value, keepSlash: false)) }
            .sorted { $0.0 == $1.0 ? $0.1 < $1.1 : $0.0 < $1.0 }
            .map { "\($0.0)=\($0.1)" }
            .joined(separator: "&")
    }
}
