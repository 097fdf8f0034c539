import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

extension OwnedFile {
    /// Reads up to `count` bytes at `offset` straight into a new buffer (fewer only at end of file).
    func readBuffer(at offset: Int64, count: Int) throws -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: count)
        var filled = 0
        while filled < count {
            let n = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count - filled) { raw in
                let got = pread(descriptor, raw.baseAddress!, count - filled, off_t(offset) + off_t(filled))
                return got < 0 ? 0 : got
            }
            if n == 0 {
                if errno == EINTR { continue }
                break  // end of file, or an error that the next read reports
            }
            filled += n
        }
        return buffer
    }
}
