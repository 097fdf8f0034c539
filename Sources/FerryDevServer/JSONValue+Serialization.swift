/// Compact JSON output.
extension JSONValue {
    /// Serializes compactly. With `asciiOnly`, every non-ASCII character and DEL is written as
    /// `\uXXXX`, as Dropbox requires for JSON carried in HTTP headers (`Dropbox-API-Result`).
    /// `escapingSlashes` writes `/` as `\/`, as PHP-backed APIs such as Flickr's do.
    func serialized(asciiOnly: Bool = false, escapingSlashes: Bool = false) -> String {
        var out = ""
        write(into: &out, Style(asciiOnly: asciiOnly, escapingSlashes: escapingSlashes))
        return out
    }

    private struct Style {
        var asciiOnly: Bool
        var escapingSlashes: Bool
    }

    private func write(into out: inout String, _ style: Style) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d):
            if d.isFinite { out += d.rounded() == d && abs(d) < 1e15 ? String(Int64(d)) : String(d) } else { out += "null" }
        case .string(let s): Self.writeString(s, into: &out, style)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                item.write(into: &out, style)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (i, (key, value)) in members.enumerated() {
                if i > 0 { out += "," }
                Self.writeString(key, into: &out, style)
                out += ":"
                value.write(into: &out, style)
            }
            out += "}"
        }
    }

    private static func writeString(_ s: String, into out: inout String, _ style: Style) {
        out += "\""
        // Most strings need no escaping: copying them whole keeps large listings cheap. The scan
        // walks raw UTF-8 because generic collection calls are slow in debug builds (tests).
        var text = s
        let needsEscaping = text.withUTF8 { bytes -> Bool in
            guard var byte = bytes.baseAddress else { return false }
            let end = byte + bytes.count
            while byte < end {
                let value = byte.pointee
                if value < 0x20 || value == UInt8(ascii: "\"") || value == UInt8(ascii: "\\")
                    || (style.escapingSlashes && value == UInt8(ascii: "/")) || (style.asciiOnly && value >= 0x7F) {
                    return true
                }
                byte += 1
            }
            return false
        }
        guard needsEscaping else {
            out += s
            out += "\""
            return
        }
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "/" where style.escapingSlashes: out += "\\/"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || (style.asciiOnly && scalar.value >= 0x7F) {
                    for unit in String(scalar).utf16 {
                        let hex = String(unit, radix: 16)
                        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                    }
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
