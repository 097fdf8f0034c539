import Foundation

/// A Swift value that can be sent as a query parameter.
///
/// Values travel in PostgreSQL's text format; `nil` is SQL `NULL`. Add explicit casts in SQL (`$1::uuid`) where
/// the server cannot infer a parameter's type.
public protocol PostgresBindable: Sendable {
    /// The value in PostgreSQL text format, or `nil` for `NULL`.
    var postgresText: String? { get }
}

extension String: PostgresBindable {
    public var postgresText: String? { self }
}

extension Substring: PostgresBindable {
    public var postgresText: String? { String(self) }
}

extension Int: PostgresBindable {
    public var postgresText: String? { String(self) }
}

extension Int16: PostgresBindable {
    public var postgresText: String? { String(self) }
}

extension Int32: PostgresBindable {
    public var postgresText: String? { String(self) }
}

extension Int64: PostgresBindable {
    public var postgresText: String? { String(self) }
}

extension Double: PostgresBindable {
    public var postgresText: String? { String(self) }
}

extension Bool: PostgresBindable {
    public var postgresText: String? { self ? "t" : "f" }
}

extension UUID: PostgresBindable {
    public var postgresText: String? { uuidString.lowercased() }
}

extension Date: PostgresBindable {
    public var postgresText: String? { PostgresTimestamp(self).postgresText }
}

extension Optional: PostgresBindable where Wrapped: PostgresBindable {
    public var postgresText: String? {
        switch self {
        case .none: nil
        case .some(let value): value.postgresText
        }
    }
}

/// Binary data sent as `bytea` (hex format).
public struct PostgresBytes: PostgresBindable, Hashable {
    public var bytes: [UInt8]
    public init(_ bytes: [UInt8]) { self.bytes = bytes }
    public init(_ data: Data) { self.bytes = Array(data) }

    public var postgresText: String? {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(2 + bytes.count * 2)
        out.append(UInt8(ascii: "\\"))
        out.append(UInt8(ascii: "x"))
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// A one-dimensional array parameter (`text[]`, `uuid[]`, `bigint[]` …) in array-literal text format.
public struct PostgresArray: PostgresBindable {
    public var elements: [String?]

    public init<S: Sequence>(_ values: S) where S.Element: PostgresBindable {
        self.elements = values.map { $0.postgresText }
    }

    public var postgresText: String? {
        var out = "{"
        out.reserveCapacity(elements.count * 16 + 2)
        for (index, element) in elements.enumerated() {
            if index > 0 { out.append(",") }
            guard let element else {
                out.append("NULL")
                continue
            }
            out.append("\"")
            for ch in element.unicodeScalars {
                if ch == "\"" || ch == "\\" { out.append("\\") }
                out.unicodeScalars.append(ch)
            }
            out.append("\"")
        }
        out.append("}")
        return out
    }
}
