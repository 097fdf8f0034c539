/// Most-significant-bit-first bit packing for JPEG entropy-coded data, with the byte stuffing
/// JPEG requires (every `0xFF` data byte is followed by `0x00`).
struct JPEGBitWriter {
    private(set) var bytes: [UInt8] = []
    private var accumulator: UInt32 = 0
    private var used = 0

    /// Appends the low `count` bits of `value`, most significant first (`count` ≤ 16).
    mutating func write(_ value: UInt32, count: Int) {
        guard count > 0 else { return }
        accumulator = (accumulator << UInt32(count)) | (value & ((1 << UInt32(count)) - 1))
        used += count
        while used >= 8 {
            used -= 8
            append(UInt8(truncatingIfNeeded: accumulator >> UInt32(used)))
        }
        accumulator &= (1 << UInt32(used)) - 1
    }

    /// Pads the last partial byte with one-bits, as the JPEG spec requires.
    mutating func flush() {
        guard used > 0 else { return }
        write((1 << UInt32(8 - used)) - 1, count: 8 - used)
    }

    private mutating func append(_ byte: UInt8) {
        bytes.append(byte)
        if byte == 0xFF { bytes.append(0x00) }
    }
}
