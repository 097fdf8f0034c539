import Foundation

/// A Swift type that can be decoded from a column value in PostgreSQL text format.
public protocol PostgresDecodable: Sendable {
    /// Decodes a non-NULL value. Throws `PostgresError` with code `.decoding` when the text does not fit.
    init(postgresText text: String) throws
}

extension PostgresDecodable {
    static func decodingError(_ text: String) -> PostgresError {
        // The value itself is not included: it may be user data.
        PostgresError(code: .decoding, reason: "a column value could not be decoded as \(Self.self)")
    }
}

extension String: PostgresDecodable {
    public init(postgresText text: String) { self = text }
}

extension Int: PostgresDecodable {
    public init(postgresText text: String) throws {
        guard let value = Int(text) else { throw Self.decodingError(text) }
        self = value
    }
}

extension Int32: PostgresDecodable {
    public init(postgresText text: String) throws {
        guard let value = Int32(text) else { throw Self.decodingError(text) }
        self = value
    }
}

extension Int64: PostgresDecodable {
    public init(postgresText text: String) throws {
        guard let value = Int64(text) else { throw Self.decodingError(text) }
        self = value
    }
}

extension Double: PostgresDecodable {
    public init(postgresText text: String) throws {
        guard let value = Double(text) else { throw Self.decodingError(text) }
        self = value
    }
}

extension Bool: PostgresDecodable {
    public init(postgresText text: String) throws {
        switch text {
        case "t", "true": self = true
        case "f", "false": self = false
        default: throw Self.decodingError(text)
        }
    }
}

extension UUID: PostgresDecodable {
    public init(postgresText text: String) throws {
        guard let value = UUID(uuidString: text) else { throw Self.decodingError(text) }
        self = value
    }
}

extension PostgresTimestamp: PostgresDecodable {
    public init(postgresText text: String) throws {
        guard let value = PostgresTimestamp(parsing: text) else { throw Self.decodingError(text) }
        self = value
    }
}

extension Date: PostgresDecodable {
    public init(postgresText text: String) throws {
        self = try PostgresTimestamp(postgresText: text).date
    }
}

extension PostgresBytes: PostgresDecodable {
    public init(postgresText text: String) throws {
        let utf8 = Array(text.utf8)
        guard utf8.count >= 2, utf8[0] == UInt8(ascii: "\\"), utf8[1] == UInt8(ascii: "x"), utf8.count % 2 == 0 else {
            throw Self.decodingError(text)
        }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case 48...57: c - 48
            case 97...102: c - 87
            case 65...70: c - 55
            default: nil
            }
        }
        var bytes = [UInt8]()
        bytes.reserveCapacity((utf8.count - 2) / 2)
        var i = 2
        while i < utf8.count {
            guard let hi = nibble(utf8[i]), let lo = nibble(utf8[i + 1]) else { throw Self.decodingError(text) }
            bytes.append(hi << 4 | lo)
            i += 2
        }
        self.init(bytes)
    }
}
