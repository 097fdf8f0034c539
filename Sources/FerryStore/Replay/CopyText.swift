/// Reading values out of COPY text fields (escaped bytes).
enum CopyText {
    /// Unescapes one field (backslash escapes of COPY's text format).
    static func unescape(_ field: UnsafeRawBufferPointer) -> String {
        guard field.contains(UInt8(ascii: "\\")) else { return String(decoding: field, as: UTF8.self) }
        return String(decoding: unescapedBytes(field), as: UTF8.self)
    }

    static func unescapedBytes(_ field: UnsafeRawBufferPointer) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(field.count)
        var index = 0
        while index < field.count {
            let byte = field[index]
            if byte == UInt8(ascii: "\\"), index + 1 < field.count {
                index += 1
                switch field[index] {
                case UInt8(ascii: "n"): out.append(10)
                case UInt8(ascii: "t"): out.append(9)
                case UInt8(ascii: "r"): out.append(13)
                case UInt8(ascii: "b"): out.append(8)
                case UInt8(ascii: "f"): out.append(12)
                case UInt8(ascii: "v"): out.append(11)
                case let other: out.append(other)
                }
            } else {
                out.append(byte)
            }
            index += 1
        }
        return out
    }

    /// A canonical integer as PostgreSQL prints it (optional '-', digits); `nil` when it is not one.
    static func canonicalInteger(_ field: UnsafeRawBufferPointer) -> Int64? {
        var index = 0
        var negative = false
        if field.count > 0 && field[0] == UInt8(ascii: "-") {
            negative = true
            index = 1
        }
        guard index < field.count else { return nil }
        var value: Int64 = 0
        while index < field.count {
            let digit = Int64(field[index]) - 48
            guard digit >= 0 && digit <= 9 else { return nil }
            let (times, o1) = value.multipliedReportingOverflow(by: 10)
            let (next, o2) = negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
            guard !o1 && !o2 else { return nil }
            value = next
            index += 1
        }
        return value
    }

    /// `text::smallint`, `::integer` (`bits` 16, 32) or `::bigint` as PostgreSQL 15 casts them.
    static func castInteger(_ field: UnsafeRawBufferPointer, bits: Int) throws(JobFoldError) -> Int64 {
        let name = bits == 16 ? "smallint" : bits == 32 ? "integer" : "bigint"
        let value: Int64
        do throws(JobFoldError) {
            value = try castBigint(field)
        } catch {
            throw JobFoldError(error.code, error.message.replacingOccurrences(of: "bigint", with: name))
        }
        if bits < 64 && (value < -(Int64(1) << (bits - 1)) || value >= Int64(1) << (bits - 1)) {
            throw JobFoldError(.outOfRange, "value \"\(unescape(field))\" is out of range for type \(name)")
        }
        return value
    }

    /// `text::bigint` as PostgreSQL 15 casts it (`pg_strtoint64`): blanks around, optional sign, decimal digits.
    /// The field is COPY-escaped; throws 22P02 or 22003 like the cast.
    static func castBigint(_ field: UnsafeRawBufferPointer) throws(JobFoldError) -> Int64 {
        if field.contains(UInt8(ascii: "\\")) {
            let bytes = unescapedBytes(field)
            // withUnsafeBytes rethrows untyped errors: carry the typed one out in a Result.
            return try bytes.withUnsafeBytes { raw in Result { () throws(JobFoldError) in try castUnescapedBigint(raw) } }.get()
        }
        return try castUnescapedBigint(field)
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 32 || (byte >= 9 && byte <= 13)
    }

    private static func castUnescapedBigint(_ text: UnsafeRawBufferPointer) throws(JobFoldError) -> Int64 {
        // Made only when thrown: building the message for every cast was a tenth of a replay's client time.
        func invalid() -> JobFoldError {
            JobFoldError(.invalidInteger, "invalid input syntax for type bigint: \"\(String(decoding: text, as: UTF8.self))\"")
        }
        var index = 0
        while index < text.count && isSpace(text[index]) { index += 1 }
        var negative = false
        if index < text.count && (text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+")) {
            negative = text[index] == UInt8(ascii: "-")
            index += 1
        }
        guard index < text.count, text[index] >= 48 && text[index] <= 57 else { throw invalid() }
        var value: Int64 = 0
        while index < text.count, text[index] >= 48 && text[index] <= 57 {
            let digit = Int64(text[index]) - 48
            let (times, o1) = value.multipliedReportingOverflow(by: 10)
            // Accumulate negatively, as PostgreSQL does, so the minimum value parses.
            let (next, o2) = times.subtractingReportingOverflow(digit)
            if o1 || o2 {
                throw JobFoldError(.outOfRange, "value \"\(String(decoding: text, as: UTF8.self))\" is out of range for type bigint")
            }
            value = next
            index += 1
        }
        while index < text.count && isSpace(text[index]) { index += 1 }
        guard index == text.count else { throw invalid() }
        if !negative {
            guard value != Int64.min else {
                throw JobFoldError(.outOfRange, "value \"\(String(decoding: text, as: UTF8.self))\" is out of range for type bigint")
            }
            return -value
        }
        return value
    }
}

extension CopyText {
    /// Appends `value` in decimal, as PostgreSQL prints integers.
    static func appendDecimal(_ value: Int64, to out: inout [UInt8]) {
        if value == 0 {
            out.append(UInt8(ascii: "0"))
            return
        }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var magnitude = value.magnitude
        withUnsafeMutableBytes(of: &digits) { buffer in
            while magnitude > 0 {
                buffer[count] = UInt8(48 + magnitude % 10)
                magnitude /= 10
                count += 1
            }
            if value < 0 { out.append(UInt8(ascii: "-")) }
            while count > 0 {
                count -= 1
                out.append(buffer[count])
            }
        }
    }
}
