import Foundation

/// Time-ordered UUIDs (RFC 9562 version 7): new jobs land at the right edge of the primary-key index instead of
/// scattering random writes across it.
public enum UUIDv7 {
    public static func make(now: Date = Date()) -> UUID {
        var generator = SystemRandomNumberGenerator()
        return make(milliseconds: UInt64(max(0, now.timeIntervalSince1970 * 1000)), using: &generator)
    }

    public static func make(milliseconds: UInt64, using generator: inout some RandomNumberGenerator) -> UUID {
        let random = generator.next() as UInt64
        let random2 = generator.next() as UInt64
        var bytes = [UInt8](repeating: 0, count: 16)
        for i in 0..<6 { bytes[i] = UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - i))) }
        bytes[6] = 0x70 | UInt8(truncatingIfNeeded: random & 0x0F)
        bytes[7] = UInt8(truncatingIfNeeded: random >> 8)
        bytes[8] = 0x80 | UInt8(truncatingIfNeeded: (random >> 16) & 0x3F)
        for i in 9..<16 { bytes[i] = UInt8(truncatingIfNeeded: random2 >> (8 * (i - 9))) }
        return UUID(uuid: (
            bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
            bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}
