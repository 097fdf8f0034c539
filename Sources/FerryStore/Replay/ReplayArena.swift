import Foundation

/// The bytes of one replay chunk: every COPY row read in the chunk is copied here once, and the fields of events
/// and folded jobs are ``ReplayText`` slices of it. Cleared between chunks, so memory follows the chunk size.
struct ReplayArena {
    private(set) var bytes: [UInt8] = []
    /// Field slices of the row appended last (reused between rows).
    private(set) var fields: [ReplayText] = []

    init() {
        bytes.reserveCapacity(1 << 24)
        fields.reserveCapacity(32)
    }

    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
    }

    /// Copies one COPY text row (trailing newline dropped) and splits it into ``fields``.
    mutating func appendRow(_ row: UnsafeRawBufferPointer) throws(ReplayDecodingError) {
        let count = row.last == UInt8(ascii: "\n") ? row.count - 1 : row.count
        let base = bytes.count
        guard base + count < Int(Int32.max) else { throw ReplayDecodingError("a replay chunk exceeds 2 GiB") }
        bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: row[0..<count]))
        fields.removeAll(keepingCapacity: true)
        Self.split(row, count: count, base: base, into: &fields)
    }

    /// Splits `row` (COPY text, `count` bytes) into field slices at offset `base`; `\N` alone is NULL.
    static func split(_ row: UnsafeRawBufferPointer, count: Int, base: Int, into fields: inout [ReplayText]) {
        var start = 0
        var index = 0
        while true {
            if index == count || row[index] == UInt8(ascii: "\t") {
                let length = index - start
                if length == 2 && row[start] == UInt8(ascii: "\\") && row[start + 1] == UInt8(ascii: "N") {
                    fields.append(.null)
                } else {
                    fields.append(ReplayText(offset: Int32(base + start), count: Int32(length)))
                }
                if index == count { return }
                start = index + 1
            }
            index += 1
        }
    }

    /// `data->>'key'` of a JSON string (`value` spans it, quotes included, in jsonb text COPY-escaped): its
    /// content as COPY text. Without escapes that is the content itself; otherwise it is decoded into the arena.
    mutating func jsonString(_ value: ReplayText) -> ReplayText {
        let content = ReplayText(offset: value.offset + 1, count: max(0, value.count - 2))
        let start = Int(content.offset)
        let end = start + Int(content.count)
        let hasEscape = bytes.withUnsafeBufferPointer { buffer in
            memchr(buffer.baseAddress! + start, Int32(UInt8(ascii: "\\")), end - start) != nil
        }
        guard hasEscape else { return content }
        var decoded = [UInt8]()
        var index = start
        func hex(_ at: Int) -> UInt32 {
            var value: UInt32 = 0
            for offset in 0..<4 where at + offset < end {
                let byte = bytes[at + offset]
                let digit: UInt8 = switch byte {
                case 48...57: byte - 48
                case 65...70: byte - 55
                case 97...102: byte - 87
                default: 0
                }
                value = value << 4 | UInt32(digit)
            }
            return value
        }
        while index < end {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "\\"), index + 2 < end else {
                decoded.append(byte)
                index += 1
                continue
            }
            // COPY's "\\" is one JSON backslash; the JSON escape follows it.
            let escaped = bytes[index + 2]
            index += escaped == UInt8(ascii: "\\") ? 4 : 3  // an escaped backslash is doubled by COPY too
            switch escaped {
            case UInt8(ascii: "b"): decoded.append(8)
            case UInt8(ascii: "f"): decoded.append(12)
            case UInt8(ascii: "n"): decoded.append(10)
            case UInt8(ascii: "r"): decoded.append(13)
            case UInt8(ascii: "t"): decoded.append(9)
            case UInt8(ascii: "u"):
                var scalar = hex(index)
                index += 4
                // A surrogate pair is "\\uD8xx\\uDCxx" in COPY text.
                if scalar >= 0xD800 && scalar < 0xDC00 && index + 7 < end + 1 && bytes[index] == UInt8(ascii: "\\")
                    && bytes[index + 2] == UInt8(ascii: "u") {
                    let low = hex(index + 3)
                    if low >= 0xDC00 && low < 0xE000 {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        index += 7
                    }
                }
                decoded.append(contentsOf: String(Unicode.Scalar(scalar).map(Character.init) ?? "\u{FFFD}").utf8)
            default: decoded.append(escaped)  // \" \\ \/
            }
        }
        let offset = bytes.count
        for byte in decoded {
            // Escaped as COPY escapes text output.
            switch byte {
            case 92: bytes.append(contentsOf: [92, 92])
            case 8: bytes.append(contentsOf: [92, UInt8(ascii: "b")])
            case 9: bytes.append(contentsOf: [92, UInt8(ascii: "t")])
            case 10: bytes.append(contentsOf: [92, UInt8(ascii: "n")])
            case 11: bytes.append(contentsOf: [92, UInt8(ascii: "v")])
            case 12: bytes.append(contentsOf: [92, UInt8(ascii: "f")])
            case 13: bytes.append(contentsOf: [92, UInt8(ascii: "r")])
            default: bytes.append(byte)
            }
        }
        return ReplayText(offset: Int32(offset), count: Int32(bytes.count - offset))
    }

    /// `'{}'::jsonb` (a job's spec when the event has none).
    mutating func emptyObject() -> ReplayText {
        let offset = bytes.count
        bytes.append(UInt8(ascii: "{"))
        bytes.append(UInt8(ascii: "}"))
        return ReplayText(offset: Int32(offset), count: 2)
    }

    /// Whether two slices hold the same bytes (both NULL counts as equal).
    func equal(_ a: ReplayText, _ b: ReplayText) -> Bool {
        if a.count != b.count { return false }
        if a.count <= 0 { return true }
        return bytes.withUnsafeBufferPointer { buffer in
            memcmp(buffer.baseAddress! + Int(a.offset), buffer.baseAddress! + Int(b.offset), Int(a.count)) == 0
        }
    }

    /// Whether slice `a` equals `count` bytes at `other` (a field of a row that is not in the arena).
    func equal(_ a: ReplayText, _ other: UnsafeRawBufferPointer, _ b: ReplayText) -> Bool {
        if a.count != b.count { return false }
        if a.count <= 0 { return true }
        return bytes.withUnsafeBufferPointer { buffer in
            memcmp(buffer.baseAddress! + Int(a.offset), other.baseAddress! + Int(b.offset), Int(a.count)) == 0
        }
    }

    /// Orders two slices bytewise (uuid text orders like the uuid), for the merge of folded and stored rows.
    func compare(_ a: ReplayText, _ other: UnsafeRawBufferPointer, _ b: ReplayText) -> Int32 {
        bytes.withUnsafeBufferPointer { buffer in
            let common = Int(min(a.count, b.count))
            let order = memcmp(buffer.baseAddress! + Int(a.offset), other.baseAddress! + Int(b.offset), common)
            return order != 0 ? order : a.count - b.count
        }
    }

    /// The slice's bytes, for a field that must be read as a value (integers, booleans, type names).
    func withBytes<T>(_ text: ReplayText, _ body: (UnsafeRawBufferPointer) throws(JobFoldError) -> T) throws(JobFoldError) -> T {
        // withUnsafeBytes rethrows untyped errors: carry the typed one out in a Result.
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(JobFoldError) in
                try body(UnsafeRawBufferPointer(rebasing: buffer[Int(text.offset)..<Int(text.offset) + Int(max(text.count, 0))]))
            }
        }.get()
    }

    /// The unescaped value as a string (for reports).
    func string(_ text: ReplayText) -> String? {
        if text.isNull { return nil }
        return bytes.withUnsafeBytes { buffer in
            CopyText.unescape(UnsafeRawBufferPointer(rebasing: buffer[Int(text.offset)..<Int(text.offset + text.count)]))
        }
    }
}
