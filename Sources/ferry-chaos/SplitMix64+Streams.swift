import FerryCore

extension SplitMix64 {
    /// An independent stream for one purpose (the schedule, one file's bytes …): drawing more from one never
    /// shifts another, so a longer run keeps the same early schedule.
    static func stream(_ seed: UInt64, _ label: String) -> SeededGenerator {
        // FNV-1a of the label, mixed into the seed.
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in label.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        var generator = SeededGenerator(seed: seed ^ hash)
        _ = generator.next()
        return generator
    }

    /// A uniform draw from a closed range of seconds (or any other double).
    mutating func uniform(_ range: ClosedRange<Double>) -> Double {
        Double.random(in: range, using: &self)
    }
}
