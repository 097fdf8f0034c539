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
