import FerryCore

/// The one place text becomes HTML: everything from the database goes through `escape`.
enum HTML {
    /// Escapes text for element content and quoted attribute values.
    static func escape(_ text: String) -> String { MarkupEscaping.escape(text) }

    /// Percent-encodes a path segment or query value for an href.
    static func component(_ text: String) -> String {
        var allowed = ""
        allowed.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                allowed.append(Character(UnicodeScalar(byte)))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                allowed += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return allowed
    }
}
