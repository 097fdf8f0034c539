import Foundation

/// Makes UUIDv7s that sort in the order they were made, also within one millisecond (RFC 9562 §6.2, method 1):
/// the 12 bits after the version hold a counter that starts at a random value in the lower half each
/// millisecond and counts up; when it runs out, the timestamp moves on by one millisecond. Job ids made by one
/// enqueue therefore list in input order (`ORDER BY job_id`).
public struct UUIDv7Generator<Random: RandomNumberGenerator> {
    private var random: Random
    private var lastMilliseconds: UInt64 = 0
    private var counter: UInt64 = 0

    public init(random: Random) {
        self.random = random
    }

    public mutating func next(now: Date = Date()) -> UUID {
        next(milliseconds: UInt64(max(0, now.timeIntervalSince1970 * 1000)))
    }

    public mutating func next(milliseconds: UInt64) -> UUID {
        var milliseconds = milliseconds
        if milliseconds <= lastMilliseconds {
            milliseconds = lastMilliseconds
            counter += 1
            if counter > 0xFFF {
                milliseconds += 1
                counter = (random.next() as UInt64) & 0x7FF
            }
        } else {
            counter = (random.next() as UInt64) & 0x7FF
        }
        lastMilliseconds = milliseconds
        let tail = random.next() as UInt64
        var bytes = [UInt8](repeating: 0, count: 16)
        for i in 0..<6 { bytes[i] = UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - i))) }
        bytes[6] = 0x70 | UInt8(truncatingIfNeeded: counter >> 8)
        bytes[7] = UInt8(truncatingIfNeeded: counter)
        bytes[8] = 0x80 | UInt8(truncatingIfNeeded: tail & 0x3F)
        for i in 9..<16 { bytes[i] = UInt8(truncatingIfNeeded: tail >> (8 * (i - 8))) }
        return UUID(uuid: (
            bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
            bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}
