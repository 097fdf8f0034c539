/// Recognises an image from its first bytes and, where cheap, reads its dimensions
/// (thumbnails keep the source's aspect ratio in `bestfit` modes).
struct ImageProbe: Sendable, Equatable {
    enum Format: Sendable { case jpeg, png, gif, bmp, webp, tiff, ppm }

    var format: Format
    var width: Int?
    var height: Int?

    /// Whether the header was whole: every format whose size the probe reads has it. (WebP, TIFF and PPM are
    /// recognised by their signature only.)
    var isComplete: Bool {
        switch format {
        case .webp, .tiff, .ppm: true
        default: width != nil && height != nil
        }
    }

    /// Extensions Dropbox thumbnails.
    static let supportedExtensions: Set<String> = ["jpg", "jpeg", "png", "tiff", "tif", "gif", "webp", "ppm", "bmp"]

    static func probe(_ bytes: [UInt8]) -> ImageProbe? {
        func be16(_ i: Int) -> Int { Int(bytes[i]) << 8 | Int(bytes[i + 1]) }
        func le16(_ i: Int) -> Int { Int(bytes[i]) | Int(bytes[i + 1]) << 8 }
        func be32(_ i: Int) -> Int { be16(i) << 16 | be16(i + 2) }
        func le32(_ i: Int) -> Int { le16(i) | le16(i + 2) << 16 }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            guard bytes.count >= 24 else { return ImageProbe(format: .png) }
            return ImageProbe(format: .png, width: be32(16), height: be32(20))
        }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            // Walk the markers up to the frame header (SOFn) for the size.
            var i = 2
            while i + 9 < bytes.count, bytes[i] == 0xFF {
                let marker = bytes[i + 1]
                let length = be16(i + 2)
                if (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker) {
                    return ImageProbe(format: .jpeg, width: be16(i + 7), height: be16(i + 5))
                }
                guard length >= 2 else { break }
                i += 2 + length
            }
            return ImageProbe(format: .jpeg)
        }
        if bytes.starts(with: Array("GIF8".utf8)), bytes.count >= 10 {
            return ImageProbe(format: .gif, width: le16(6), height: le16(8))
        }
        if bytes.starts(with: Array("BM".utf8)), bytes.count >= 26 {
            return ImageProbe(format: .bmp, width: le32(18), height: abs(Int(Int32(truncatingIfNeeded: le32(22)))))
        }
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) {
            return ImageProbe(format: .webp)
        }
        if bytes.starts(with: [0x49, 0x49, 0x2A, 0x00]) || bytes.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) {
            return ImageProbe(format: .tiff)
        }
        if bytes.starts(with: Array("P6".utf8)) || bytes.starts(with: Array("P3".utf8)) {
            return ImageProbe(format: .ppm)
        }
        return nil
    }
}
