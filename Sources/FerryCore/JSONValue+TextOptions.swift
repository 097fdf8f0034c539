extension JSONValue {
    /// Compact JSON text with every non-ASCII character (and 0x7F) escaped as `\uXXXX`, using surrogate pairs
    /// above U+FFFF. HTTP header values must be ASCII: Dropbox's `Dropbox-API-Arg` requires this form.
    public var asciiJSONText: String { jsonText(.asciiOnly) }

    /// Compact JSON text written with `options`. Object keys are sorted, as in ``jsonText``, except that keys
    /// named in `leadingKeys` come first, in that order, at every level: for mimicking a service whose answers
    /// have a fixed member order (the dev server's Flickr stand-in).
    public func jsonText(_ options: JSONTextOptions, leadingKeys: [String] = []) -> String {
        var out = [UInt8]()
        out.reserveCapacity(128)
        let ranks = leadingKeys.isEmpty ? nil : Dictionary(leadingKeys.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        write(into: &out, escapingSlashes: options.contains(.escapingSlashes), keyRanks: ranks)
        guard options.contains(.asciiOnly), out.contains(where: { $0 >= 0x7F }) else { return String(decoding: out, as: UTF8.self) }
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
