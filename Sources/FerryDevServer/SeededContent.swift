import Foundation
import NIOCore

/// Content of a seeded file: one line (`01234 /folder/file-01234.bin\n`) repeated up to the
/// file size, so every file differs (from five bytes on) and any size costs nothing to describe.
///
/// Seeded files stay in the index only until something needs their bytes (a download, a
/// thumbnail): creating 20,000 files one by one takes seconds on some file systems, while
/// listing them needs none of them.
struct SeededContent: Sendable, Equatable {
    var line: [UInt8]

    init(number: String, pathDisplay: String) {
        line = Array("\(number) \(pathDisplay)\n".utf8)
    }

    /// Replaces the buffer's contents with the file's `size` bytes.
    func fill(_ buffer: inout ByteBuffer, size: Int) {
        buffer.clear()
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: size) { raw in
            // memcpy keeps this cheap even in debug builds, where byte-wise writes dominated.
            line.withUnsafeBytes { source in
                guard let target = raw.baseAddress, let from = source.baseAddress, !source.isEmpty else { return }
                var offset = 0
                while offset < size {
                    let take = min(source.count, size - offset)
                    memcpy(target + offset, from, take)
                    offset += take
                }
            }
            return size
        }
    }
}
