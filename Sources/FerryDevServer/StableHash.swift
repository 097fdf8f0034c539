import FerryCore

/// A 64-bit hash that is the same in every process (unlike `Hasher`), so seeded fixtures such
/// as Flickr photos come out identical across runs and restarts.
enum StableHash {
    /// FNV-1a over the parts (separated by NUL), finished with a SplitMix64 step to spread the bits.
    static func of(_ parts: String...) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for (index, part) in parts.enumerated() {
            if index > 0 { hash = (hash ^ 0) &* 0x0000_0100_0000_01B3 }
            for byte in part.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        }
        var mixer = SplitMix64(seed: hash)
        return mixer.next()
    }
}
