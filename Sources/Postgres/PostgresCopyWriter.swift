import CLibPQ

/// Streams rows into a running `COPY … FROM STDIN` in text format, buffering into large `PQputCopyData` calls.
public struct PostgresCopyWriter: ~Copyable {
    let handle: OpaquePointer
    var buffer: [UInt8] = []
    let flushThreshold = 256 * 1024

    init(handle: OpaquePointer) {
        self.handle = handle
        buffer.reserveCapacity(flushThreshold + 4096)
    }

    /// Appends one row; `nil` values become `\N` (NULL). Tabs, newlines and backslashes are escaped.
    public mutating func writeRow(_ values: [String?]) throws {
        for (index, value) in values.enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: "\t")) }
            guard let value else {
                buffer.append(UInt8(ascii: "\\"))
                buffer.append(UInt8(ascii: "N"))
                continue
            }
            Self.appendEscaped(value.utf8, to: &buffer)
        }
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count >= flushThreshold { try flush() }
    }

    /// Appends one field given as UTF-8 bytes (no intermediate `String`); call `endRow()` after the last field.
    public mutating func writeField(utf8 bytes: [UInt8], first: Bool) {
        if !first { buffer.append(UInt8(ascii: "\t")) }
        Self.appendEscaped(bytes, to: &buffer)
    }

    /// Appends `bytes` as one field of COPY's text format: backslash, tab, newline and carriage return escaped.
    public static func appendEscaped(_ bytes: some Sequence<UInt8>, to output: inout [UInt8]) {
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\\"): output.append(contentsOf: [92, 92])
            case UInt8(ascii: "\t"): output.append(contentsOf: [92, 116])
            case UInt8(ascii: "\n"): output.append(contentsOf: [92, 110])
            case UInt8(ascii: "\r"): output.append(contentsOf: [92, 114])
            default: output.append(byte)
            }
        }
    }

    /// Appends one whole row already in COPY text format (fields escaped, tab-separated, newline-terminated).
    public mutating func writeEncodedRow(_ bytes: [UInt8]) throws {
        buffer.append(contentsOf: bytes)
        if buffer.count >= flushThreshold { try flush() }
    }

    /// Ends a row written with `writeField`.
    public mutating func endRow() throws {
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count >= flushThreshold { try flush() }
    }

    mutating func flush() throws {
        guard !buffer.isEmpty else { return }
        let status = buffer.withUnsafeBufferPointer { pointer in
            pointer.withMemoryRebound(to: CChar.self) { chars in
                PQputCopyData(handle, chars.baseAddress, Int32(chars.count))
            }
        }
        buffer.removeAll(keepingCapacity: true)
        guard status == 1 else {
            throw PostgresError(code: .copyFailed, reason: "sending COPY data failed")
        }
    }
}
