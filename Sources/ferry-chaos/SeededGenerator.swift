/// SplitMix64: small, fast and seedable, so one printed seed replays the same schedule and the same file contents.
struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

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
