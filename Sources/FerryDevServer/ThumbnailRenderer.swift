/// Produces small, valid, flat grey images of a requested size. The dev server does not
/// resample the source; it only needs to return a real image of the right format and size.
enum ThumbnailRenderer {
    /// Baseline greyscale JPEG. The Huffman tables hold a single code each ("DC diff 0" and
    /// "end of block"), so every 8x8 block is two zero bits and any size stays tiny.
    static func jpeg(width: Int, height: Int) -> [UInt8] {
        var out: [UInt8] = [0xFF, 0xD8]
        func segment(_ marker: UInt8, _ payload: [UInt8]) {
            out += [0xFF, marker, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)]
            out += payload
        }
        segment(0xE0, Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0])
        segment(0xDB, [0] + [UInt8](repeating: 1, count: 64))
        segment(0xC0, [8, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF), 1, 1, 0x11, 0])
        segment(0xC4, [0x00, 1] + [UInt8](repeating: 0, count: 15) + [0x00])
        segment(0xC4, [0x10, 1] + [UInt8](repeating: 0, count: 15) + [0x00])
        segment(0xDA, [1, 1, 0x00, 0, 63, 0])
        let blocks = ((width + 7) / 8) * ((height + 7) / 8)
        let bits = blocks * 2
        out += [UInt8](repeating: 0, count: bits / 8)
        // Pad the final partial byte with one-bits, as the JPEG spec requires.
        if bits % 8 != 0 { out.append(UInt8(0xFF >> (bits % 8))) }
        out += [0xFF, 0xD9]
        return out
    }

    /// 8-bit greyscale PNG with stored (uncompressed) deflate blocks.
    static func png(width: Int, height: Int) -> [UInt8] {
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func chunk(_ type: String, _ data: [UInt8]) {
            let typed = Array(type.utf8) + data
            out += be32(data.count) + typed + be32(Int(crc32(typed)))
        }
        chunk("IHDR", be32(width) + be32(height) + [8, 0, 0, 0, 0])
        var raw: [UInt8] = []
        raw.reserveCapacity((width + 1) * height)
        for _ in 0..<height {
            raw.append(0)
            raw += [UInt8](repeating: 0x80, count: width)
        }
        var zlib: [UInt8] = [0x78, 0x01]
        var index = 0
        repeat {
            let length = min(65_535, raw.count - index)
            let final: UInt8 = index + length >= raw.count ? 1 : 0
            zlib += [final, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            zlib += raw[index..<index + length]
            index += length
        } while index < raw.count
        zlib += be32(Int(adler32(raw)))
        chunk("IDAT", zlib)
        chunk("IEND", [])
        return out
    }

    /// Lossless WebP (VP8L) whose five prefix codes each have one symbol: every pixel costs
    /// zero bits, so the image data is empty whatever the size.
    static func webp(width: Int, height: Int) -> [UInt8] {
        var bits = BitWriter()
        bits.write(UInt32(width - 1), count: 14)
        bits.write(UInt32(height - 1), count: 14)
        bits.write(0, count: 1) // alpha not used
        bits.write(0, count: 3) // version
        bits.write(0, count: 1) // no transform
        bits.write(0, count: 1) // no colour cache
        bits.write(0, count: 1) // no meta prefix codes
        for symbol in [128, 128, 128, 255] as [UInt32] { // green, red, blue, alpha
            bits.write(1, count: 1) // simple code
            bits.write(0, count: 1) // one symbol
            bits.write(1, count: 1) // 8-bit symbol
            bits.write(symbol, count: 8)
        }
        bits.write(1, count: 1) // distance: simple code,
        bits.write(0, count: 1) // one symbol,
        bits.write(0, count: 1) // 1-bit symbol
        bits.write(0, count: 1) // = 0
        let payload = [0x2F] + bits.bytes
        func le32(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24 & 0xFF)] }
        var chunk = Array("VP8L".utf8) + le32(payload.count) + payload
        if payload.count % 2 == 1 { chunk.append(0) }
        return Array("RIFF".utf8) + le32(4 + chunk.count) + Array("WEBP".utf8) + chunk
    }

    private static func crc32(_ data: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    private static func adler32(_ data: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return b << 16 | a
    }
}
