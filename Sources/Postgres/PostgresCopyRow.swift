/// Decodes one row of COPY's text format: tab-separated fields, `\N` for NULL, backslash escapes.
public enum PostgresCopyRow {
    /// The row's fields as strings (`nil` for NULL). `row` may end with the row's newline.
    public static func fields(_ row: UnsafeRawBufferPointer) -> [String?] {
        var fields = [String?]()
        var current = [UInt8]()
        var isNull = false
        var index = 0
        let count = row.last == UInt8(ascii: "\n") ? row.count - 1 : row.count
        func finish() {
            fields.append(isNull ? nil : String(decoding: current, as: UTF8.self))
            current.removeAll(keepingCapacity: true)
            isNull = false
        }
        while index < count {
            let byte = row[index]
            if byte == UInt8(ascii: "\t") {
                finish()
            } else if byte == UInt8(ascii: "\\"), index + 1 < count {
                index += 1
                switch row[index] {
                case UInt8(ascii: "N") where current.isEmpty: isNull = true
                case UInt8(ascii: "n"): current.append(10)
                case UInt8(ascii: "t"): current.append(9)
                case UInt8(ascii: "r"): current.append(13)
                case UInt8(ascii: "b"): current.append(8)
                case UInt8(ascii: "f"): current.append(12)
                case UInt8(ascii: "v"): current.append(11)
                case let other: current.append(other)  // \\ and any other escaped byte stand for themselves
                }
            } else {
                current.append(byte)
            }
            index += 1
        }
        finish()
        return fields
    }
}
