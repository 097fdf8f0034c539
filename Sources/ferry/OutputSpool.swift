import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Holds a command's standard output in an unlinked temporary file until the work it reports has committed,
/// so output of any size costs no memory and nothing is printed for work that was rolled back.
final class OutputSpool {
    private let descriptor: Int32
    private var buffer = [UInt8]()

    init() throws {
        var template = Array((NSTemporaryDirectory() + "/ferry-output.XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            throw OutputSpoolError(description: "cannot create a temporary file in \(NSTemporaryDirectory()) (\(String(cString: strerror(errno)))); set TMPDIR to a writable folder")
        }
        // Unlinked at once: the file disappears with the process, whatever happens.
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        self.descriptor = descriptor
        buffer.reserveCapacity(1 << 16)
    }

    deinit {
        close(descriptor)
    }

    func write(_ text: String) throws {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 16 { try flush() }
    }

    private func flush() throws {
        try Self.writeAll(buffer[...], to: descriptor)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Copies everything written so far to standard output.
    func copyToStandardOutput() throws {
        try flush()
        guard lseek(descriptor, 0, SEEK_SET) == 0 else { throw OutputSpoolError(description: "rewinding the output spool failed") }
        var piece = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = piece.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            try Self.writeAll(piece[0..<count], to: STDOUT_FILENO)
        }
    }

    /// Calls `body` with each line written so far (without its newline), in order; reads in pieces, so the
    /// spool's size costs no memory.
    func forEachLine(_ body: (String) throws -> Void) throws {
        try flush()
        guard lseek(descriptor, 0, SEEK_SET) == 0 else { throw OutputSpoolError(description: "rewinding the output spool failed") }
        var piece = [UInt8](repeating: 0, count: 1 << 16)
        var pending = [UInt8]()
        while true {
            let count = piece.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            var start = 0
            for index in 0..<count where piece[index] == 10 {
                pending.append(contentsOf: piece[start..<index])
                try body(String(decoding: pending, as: UTF8.self))
                pending.removeAll(keepingCapacity: true)
                start = index + 1
            }
            pending.append(contentsOf: piece[start..<count])
        }
        if !pending.isEmpty { try body(String(decoding: pending, as: UTF8.self)) }
    }

    private static func writeAll(_ bytes: ArraySlice<UInt8>, to descriptor: Int32) throws {
        var rest = bytes
        while !rest.isEmpty {
            let written = rest.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                throw OutputSpoolError(description: "writing output failed (\(String(cString: strerror(errno))))")
            }
            rest = rest.dropFirst(written)
        }
    }
}
