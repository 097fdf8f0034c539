/// An SQL identifier (schema, table, column or channel name), escaped for safe inclusion in SQL text.
///
/// Values always travel as bind parameters; identifiers cannot, so this is the only way they enter SQL text.
public struct PostgresIdentifier: Sendable, Hashable, CustomStringConvertible {
    public let name: String

    public init(_ name: String) { self.name = name }

    /// The identifier double-quoted with embedded quotes doubled; NUL bytes are dropped (PostgreSQL rejects them).
    public var quoted: String {
        "\"" + name.replacingOccurrences(of: "\0", with: "").replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    public var description: String { quoted }
}

/// Escapes a string as an SQL literal for the rare statements that take no parameters (`LISTEN`, `SET`).
public func postgresLiteral(_ value: String) -> String {
    "'" + value.replacingOccurrences(of: "\0", with: "").replacingOccurrences(of: "'", with: "''") + "'"
}
