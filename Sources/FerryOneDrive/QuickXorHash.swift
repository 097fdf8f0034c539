import FerryHTTP

/// Microsoft's QuickXorHash, the content hash OneDrive states for every file (`file.hashes.quickXorHash`).
///
/// A 160-bit register: byte `i` of the content is XORed in at bit `(11 × i) mod 160` (wrapping past bit 159 to
/// bit 0); at the end the content's length (64 bits, little-endian) is XORed into the register's last 8 bytes. The
/// digest is the register's 20 bytes (little-endian cells), written in base64. Feed it in pieces of any size.
public struct QuickXorHash: Sendable {
    static let widthInBits = 160
    static let shift = 11

    /// Bits 0–63, 64–127 and 128–159 (the last cell's upper half is never read).
    private var cells: (UInt64, UInt64, UInt64) = (0, 0, 0)
    /// Bit position of the next byte.
    private var position = 0
    private var length: UInt64 = 0

    public init() {}

    public mutating func update(_ bytes: UnsafeRawBufferPointer) { absorb(bytes) }

    public mutating func update(_ bytes: [UInt8]) { absorb(bytes) }

    private mutating func absorb<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        var position = self.position
        var cells = self.cells
        var count: UInt64 = 0
        for byte in bytes {
            let value = UInt64(byte)
            let offset = position & 63
            switch position >> 6 {
            case 0:
                cells.0 ^= value << offset
                if offset > 56 { cells.1 ^= value >> (64 - offset) }
            case 1:
                cells.1 ^= value << offset
                if offset > 56 { cells.2 ^= value >> (64 - offset) }
            default:
                // The last cell holds 32 bits: a byte past bit 159 wraps to bit 0.
                cells.2 ^= value << offset
                if offset > 24 { cells.0 ^= value >> (32 - offset) }
            }
            position += Self.shift
            if position >= Self.widthInBits { position -= Self.widthInBits }
            count += 1
        }
        self.cells = cells
        self.position = position
        length &+= count
    }

    /// The 20 digest bytes.
    public func digest() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 20)
        for index in 0..<8 {
            out[index] = UInt8(truncatingIfNeeded: cells.0 >> (8 * UInt64(index)))
            out[8 + index] = UInt8(truncatingIfNeeded: cells.1 >> (8 * UInt64(index)))
        }
        for index in 0..<4 { out[16 + index] = UInt8(truncatingIfNeeded: cells.2 >> (8 * UInt64(index))) }
        for index in 0..<8 { out[12 + index] ^= UInt8(truncatingIfNeeded: length >> (8 * UInt64(index))) }
        return out
    }

    /// The digest in base64, as OneDrive writes it.
    public func base64() -> String { Self.base64(digest()) }

    /// The digest of `bytes`, in base64.
    public static func hash(_ bytes: [UInt8]) -> String {
        var hasher = QuickXorHash()
        hasher.update(bytes)
        return hasher.base64()
    }

    /// Standard base64 with padding (RFC 4648 §4).
    static func base64(_ bytes: [UInt8]) -> String {
        Base64Text.standard(bytes)
    }
}
