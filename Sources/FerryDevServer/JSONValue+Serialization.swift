/// Compact JSON output.
extension JSONValue {
    /// Serializes compactly. With `asciiOnly`, every non-ASCII character and DEL is written as
    /// `\uXXXX`, as Dropbox requires for JSON carried in HTTP headers (`Dropbox-API-Result`).
    func serialized(asciiOnly: Bool = false) -> String {
        var out = ""
        write(into: &out, asciiOnly: asciiOnly)
        return out
    }

    private func write(into out: inout String, asciiOnly: Bool) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d):
            if d.isFinite { out += d.rounded() == d && abs(d) < 1e15 ? String(Int64(d)) : String(d) } else { out += "null" }
        case .string(let s): Self.writeString(s, into: &out, asciiOnly: asciiOnly)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                item.write(into: &out, asciiOnly: asciiOnly)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (i, (key, value)) in members.enumerated() {
                if i > 0 { out += "," }
                Self.writeString(key, into: &out, asciiOnly: asciiOnly)
                out += ":"
                value.write(into: &out, asciiOnly: asciiOnly)
            }
            out += "}"
        }
    }

    private static func writeString(_ s: String, into out: inout String, asciiOnly: Bool) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || (asciiOnly && scalar.value >= 0x7F) {
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
