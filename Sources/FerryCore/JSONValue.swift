/// A JSON value with deterministic serialization (object keys sorted), used for event payloads.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Compact JSON text with sorted keys and `\uXXXX` escapes for control characters.
    public var jsonText: String {
        var out = [UInt8]()
        out.reserveCapacity(128)
        write(into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the compact JSON text to `out` as UTF-8 (the fast path for bulk writers).
    public func write(into out: inout [UInt8]) {
        write(into: &out, escapingSlashes: false, keyRanks: nil)
    }

    /// `keyRanks` puts the keys it ranks first, lowest rank first; the rest follow sorted.
    func write(into out: inout [UInt8], escapingSlashes: Bool, keyRanks: [String: Int]?) {
        switch self {
        case .null: out.append(contentsOf: [110, 117, 108, 108])
        case .bool(let value): out.append(contentsOf: value ? Array("true".utf8) : Array("false".utf8))
        case .int(let value): out.append(contentsOf: String(value).utf8)
        case .double(let value):
            out.append(contentsOf: (value.isFinite ? String(value) : "null").utf8)
        case .string(let value): Self.writeString(value, into: &out, escapingSlashes: escapingSlashes)
        case .array(let values):
            out.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                value.write(into: &out, escapingSlashes: escapingSlashes, keyRanks: keyRanks)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            let keys = keyRanks.map { ranks in
                members.keys.sorted { (ranks[$0] ?? Int.max, $0) < (ranks[$1] ?? Int.max, $1) }
            } ?? members.keys.sorted()
            for (index, key) in keys.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.writeString(key, into: &out, escapingSlashes: escapingSlashes)
                out.append(UInt8(ascii: ":"))
                members[key]!.write(into: &out, escapingSlashes: escapingSlashes, keyRanks: keyRanks)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    static func writeString(_ value: String, into out: inout [UInt8], escapingSlashes: Bool = false) {
        out.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [92, 34])
            case UInt8(ascii: "/") where escapingSlashes: out.append(contentsOf: [92, 47])
            case UInt8(ascii: "\\"): out.append(contentsOf: [92, 92])
            case UInt8(ascii: "\n"): out.append(contentsOf: [92, 110])
            case UInt8(ascii: "\r"): out.append(contentsOf: [92, 114])
            case UInt8(ascii: "\t"): out.append(contentsOf: [92, 116])
            case 0..<0x20, 0x7F:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [92, 117, 48, 48, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Parses JSON text (RFC 8259, strict).
    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(Array(text.utf8))
        return try parser.parseDocument()
    }

    /// Parses JSON from raw bytes (a request body, a file): invalid UTF-8 inside a string is an error,
    /// never silently replaced.
    public static func parse(utf8 bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes)
        return try parser.parseDocument()
    }

    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var intValue: Int64? {
        switch self {
        case .int(let value): value
        case .double(let value): Int64(exactly: value)
        default: nil
        }
    }
}
