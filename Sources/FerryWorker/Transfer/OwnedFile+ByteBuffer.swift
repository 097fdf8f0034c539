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

    /// Writes `buffers` back to back at `offset` with `pwritev`, straight from their storage (no copy).
    /// At most `IOV_MAX` (1024) buffers.
    func write(_ buffers: [ByteBuffer], at offset: Int64) throws {
        precondition(buffers.count <= 1024, "more buffers than one pwritev takes")
        var vectors = [iovec]()
        vectors.reserveCapacity(buffers.count)
        // Each buffer's bytes are only valid inside its closure: nest them, then write from the innermost.
        func gather(_ index: Int) throws {
            guard index < buffers.count else { return try writeAll(&vectors, at: offset) }
            try buffers[index].withUnsafeReadableBytes { raw in
                if raw.count > 0 { vectors.append(iovec(iov_base: UnsafeMutableRawPointer(mutating: raw.baseAddress), iov_len: raw.count)) }
                try gather(index + 1)
            }
        }
        try gather(0)
    }

    private func writeAll(_ vectors: inout [iovec], at offset: Int64) throws {
        var position = off_t(offset)
        var first = 0
        while first < vectors.count {
            let n = vectors[first...].withUnsafeBufferPointer { pointer in
                pwritev(descriptor, pointer.baseAddress, Int32(pointer.count), position)
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw POSIXFailure(operation: "write", path: path, code: errno)
            }
            // A short write: skip what went out, including the written part of the first vector left.
            position += off_t(n)
            var left = n
            while first < vectors.count && left >= vectors[first].iov_len {
                left -= vectors[first].iov_len
                first += 1
            }
            if left > 0 {
                vectors[first].iov_base = vectors[first].iov_base! + left
                vectors[first].iov_len -= left
            }
        }
    }
}
