import FerryCore
/// Base64url without padding (RFC 4648 §5), as PKCE challenges use it.
enum Base64URL {
    static func encode(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".unicodeScalars)
        var out = ""
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            var value = 0
            for (offset, byte) in chunk.enumerated() { value |= Int(byte) << (16 - 8 * offset) }
            for position in 0..<(chunk.count + 1) {
                out.unicodeScalars.append(alphabet[(value >> (18 - 6 * position)) & 0x3F])
            }
            index += 3
        }
        return out
    }
}
