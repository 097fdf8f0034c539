/// Base64 of bytes, without Foundation: standard with padding (RFC 4648 §4), or URL-safe without (§5).
public enum Base64Text {
    /// Standard base64 with `=` padding.
    public static func standard(_ bytes: [UInt8]) -> String {
        encode(bytes, alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", padded: true)
    }

    /// Base64url without padding.
    public static func url(_ bytes: [UInt8]) -> String {
        encode(bytes, alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", padded: false)
    }

    private static func encode(_ bytes: [UInt8], alphabet: String, padded: Bool) -> String {
        let alphabet = Array(alphabet.unicodeScalars)
        var out = ""
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            var value = 0
            for (offset, byte) in chunk.enumerated() { value |= Int(byte) << (16 - 8 * offset) }
            for position in 0...chunk.count { out.unicodeScalars.append(alphabet[(value >> (18 - 6 * position)) & 0x3F]) }
            if padded { out += String(repeating: "=", count: 3 - chunk.count) }
            index += 3
        }
        return out
    }
}
