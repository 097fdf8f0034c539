/// Stand-in photographs for the Flickr photo host: real baseline colour JPEGs, different for
/// every seed, that stay a few kilobytes at any size.
extension ThumbnailRenderer {
    /// A YCbCr 4:2:0 baseline JPEG of a blocky landscape (sky gradient, sun disc, ground)
    /// whose colours and layout come from `seed`. Every 8x8 block is flat (DC only, the AC
    /// table holds just "end of block"), and the DC table gives "no change" a 1-bit code, so
    /// a 1024x768 image takes about 5 KB.
    static func photo(width: Int, height: Int, seed: UInt64) -> [UInt8] {
        var out: [UInt8] = [0xFF, 0xD8]
        func segment(_ marker: UInt8, _ payload: [UInt8]) {
            out += [0xFF, marker, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)]
            out += payload
        }
        segment(0xE0, Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0])
        // DC is quantised by 16 (each DC step is 2 grey levels); AC coefficients are never coded.
        segment(0xDB, [0, 16] + [UInt8](repeating: 1, count: 63))
        segment(0xC0, [8, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF), 3,
                       1, 0x22, 0, 2, 0x11, 0, 3, 0x11, 0])
        // DC categories 0...11 with code lengths 1...12: 0, 10, 110, ..., 111111111110.
        segment(0xC4, [0x00] + [UInt8](repeating: 1, count: 12) + [0, 0, 0, 0] + (0...11).map { UInt8($0) })
        segment(0xC4, [0x10, 1] + [UInt8](repeating: 0, count: 15) + [0x00])
        segment(0xDA, [3, 1, 0x00, 2, 0x00, 3, 0x00, 0, 63, 0])

        let scene = PhotoScene(seed: seed, width: width, height: height)
        var bits = JPEGBitWriter()
        var predictors = [0, 0, 0]
        func block(_ component: Int, _ level: Int) {
            // Flat block of `level`: DC = 8 * (level - 128), quantised by 16.
            let dc = (max(0, min(255, level)) - 128) / 2
            let diff = dc - predictors[component]
            predictors[component] = dc
            let category = diff == 0 ? 0 : Int.bitWidth - abs(diff).leadingZeroBitCount
            bits.write(UInt32((1 << (category + 1)) - 2), count: category + 1)
            if category > 0 {
                bits.write(UInt32(diff > 0 ? diff : diff + (1 << category) - 1), count: category)
            }
            bits.write(0, count: 1) // end of block
        }
        for mcuY in 0..<(height + 15) / 16 {
            for mcuX in 0..<(width + 15) / 16 {
                for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                    block(0, scene.colour(x: mcuX * 16 + dx * 8 + 4, y: mcuY * 16 + dy * 8 + 4).y)
                }
                let chroma = scene.colour(x: mcuX * 16 + 8, y: mcuY * 16 + 8)
                block(1, chroma.cb)
                block(2, chroma.cr)
            }
        }
        bits.flush()
        out += bits.bytes
        out += [0xFF, 0xD9]
        return out
    }
}
