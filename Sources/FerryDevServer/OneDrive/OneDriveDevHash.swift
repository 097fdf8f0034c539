/// QuickXorHash as Microsoft's reference code computes it (three 64-bit cells, the last holding 32 bits; for each of
/// the 160 bit positions, the XOR of every 160th byte shifted in), written apart from the client's so that each
/// checks the other.
struct OneDriveDevHash {
    private var cells: [UInt64] = [0, 0, 0]
    private var shiftSoFar = 0
    private var length: UInt64 = 0

    mutating func update(_ bytes: [UInt8]) {
        let width = 160
        var vectorIndex = shiftSoFar / 64
        var vectorOffset = shiftSoFar % 64
        let iterations = min(bytes.count, width)
        for i in 0..<iterations {
            let isLast = vectorIndex == cells.count - 1
            let bitsInCell = isLast ? width % 64 : 64
            var xored: UInt8 = 0
            var j = i
            while j < bytes.count {
                xored ^= bytes[j]
                j += width
            }
            if vectorOffset <= bitsInCell - 8 {
                cells[vectorIndex] ^= UInt64(xored) << UInt64(vectorOffset)
            } else {
                let next = isLast ? 0 : vectorIndex + 1
                cells[vectorIndex] ^= UInt64(xored) << UInt64(vectorOffset)
                cells[next] ^= UInt64(xored) >> UInt64(bitsInCell - vectorOffset)
            }
            vectorOffset += 11
            while vectorOffset >= bitsInCell {
                vectorIndex = isLast ? 0 : vectorIndex + 1
                vectorOffset -= bitsInCell
            }
        }
        shiftSoFar = (shiftSoFar + 11 * (bytes.count % width)) % width
        length += UInt64(bytes.count)
    }

    /// The digest in base64.
    func base64() -> String {
        var out = [UInt8](repeating: 0, count: 20)
        for cell in 0..<2 {
            for byte in 0..<8 { out[cell * 8 + byte] = UInt8(truncatingIfNeeded: cells[cell] >> UInt64(8 * byte)) }
        }
        for byte in 0..<4 { out[16 + byte] = UInt8(truncatingIfNeeded: cells[2] >> UInt64(8 * byte)) }
        for byte in 0..<8 { out[12 + byte] ^= UInt8(truncatingIfNeeded: length >> UInt64(8 * byte)) }
        return Self.base64(out)
    }

    static func hash(_ bytes: [UInt8]) -> String {
        var hasher = OneDriveDevHash()
        hasher.update(bytes)
        return hasher.base64()
    }

    static func base64(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        var out = ""
        var index = 0
        while index < bytes.count {
            let chunk = Array(bytes[index..<min(index + 3, bytes.count)])
            let value = chunk.enumerated().reduce(0) { $0 | Int($1.element) << (16 - 8 * $1.offset) }
            for position in 0..<4 { out.append(position <= chunk.count ? alphabet[(value >> (18 - 6 * position)) & 0x3F] : "=") }
            index += 3
        }
        return out
    }
}
