/// Least-significant-bit-first bit packing, as WebP lossless streams are written.
struct BitWriter {
    private(set) var bytes: [UInt8] = []
    private var used = 0

    mutating func write(_ value: UInt32, count: Int) {
        for i in 0..<count {
            if used == 0 { bytes.append(0) }
            if (value >> UInt32(i)) & 1 == 1 { bytes[bytes.count - 1] |= UInt8(1 << used) }
            used = (used + 1) % 8
        }
    }
}
