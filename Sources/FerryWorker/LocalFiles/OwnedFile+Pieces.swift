extension OwnedFile {
    /// Reads the file's first `size` bytes in pieces of up to 1 MiB (one buffer for them all), handing each to
    /// `body`; false when the file ends before `size`. Blocking: call through `BlockingIO`.
    func readPieces(size: Int64, _ body: (UnsafeRawBufferPointer) throws -> Void) throws -> Bool {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var offset: Int64 = 0
        while offset < size {
            let count = try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<Int(min(Int64(buffer.count), size - offset))]), at: offset)
            guard count > 0 else { return false }
            try body(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            offset += Int64(count)
        }
        return true
    }
}
