extension JSONValue {
    /// Compact JSON text with every non-ASCII character (and 0x7F) escaped as `\uXXXX`, using surrogate pairs
    /// above U+FFFF. HTTP header values must be ASCII: Dropbox's `Dropbox-API-Arg` requires this form.
    public var asciiJSONText: String {
        var out = [UInt8]()
        out.reserveCapacity(128)
        write(into: &out)
        guard out.contains(where: { $0 >= 0x7F }) else { return String(decoding: out, as: UTF8.self) }
        // Non-ASCII bytes only occur inside strings, so escaping scalar by scalar keeps the document valid.
        var escaped = ""
        escaped.reserveCapacity(out.count + 16)
        for scalar in String(decoding: out, as: UTF8.self).unicodeScalars {
            if scalar.value < 0x7F {
                escaped.unicodeScalars.append(scalar)
            } else {
                for unit in String(scalar).utf16 { escaped += "\\u" + Self.hex4(unit) }
            }
        }
        return escaped
    }

    private static func hex4(_ unit: UInt16) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(unit >> 12)], digits[Int((unit >> 8) & 0xF)], digits[Int((unit >> 4) & 0xF)], digits[Int(unit & 0xF)]])
    }
}
