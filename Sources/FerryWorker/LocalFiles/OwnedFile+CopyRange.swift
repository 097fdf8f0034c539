#if canImport(Glibc)
    import Glibc
#endif

extension OwnedFile {
    /// Whether `copyRange` may use `copy_file_range`; `FERRY_TEST_NO_COPY_FILE_RANGE=1` turns it off, so tests
    /// can run the read/write fallback on a filesystem where the kernel copy works.
    static let kernelCopyAllowed = getenv("FERRY_TEST_NO_COPY_FILE_RANGE").map { String(cString: $0) } != "1"

    /// Copies `count` bytes at `offset` of `source` to the same offset of this file inside the kernel
    /// (`copy_file_range`: the bytes never pass through this process). Returns the bytes copied, fewer than `count`
    /// only at the source's end of file; `nil` when the kernel cannot copy between these two files (`EXDEV`,
    /// `ENOSYS`, `EINVAL`, `EOPNOTSUPP`, or turned off): then nothing was copied and the caller reads and writes.
    func copyRange(from source: OwnedFile, at offset: Int64, count: Int) throws -> Int? {
        #if canImport(Glibc)
            guard Self.kernelCopyAllowed else { return nil }
            var copied = 0
            while copied < count {
                var from = offset + Int64(copied)
                var to = from
                let n = linuxCopyFileRange(source.descriptor, &from, descriptor, &to, count - copied, 0)
                if n < 0 {
                    let code = errno
                    if code == EINTR { continue }
                    if copied == 0 && [EXDEV, ENOSYS, EINVAL, EOPNOTSUPP].contains(code) { return nil }
                    throw POSIXFailure(operation: "copy_file_range", path: path, code: code)
                }
                if n == 0 { break }
                copied += n
            }
            return copied
        #else
            return nil
        #endif
    }
}

#if canImport(Glibc)
    /// Linux's `copy_file_range(2)`, which the Glibc module does not import (it needs `_GNU_SOURCE`).
    @_silgen_name("copy_file_range")
    private func linuxCopyFileRange(
        _ input: Int32, _ inputOffset: UnsafeMutablePointer<Int64>?, _ output: Int32, _ outputOffset: UnsafeMutablePointer<Int64>?,
        _ count: Int, _ flags: UInt32
    ) -> Int
#endif
