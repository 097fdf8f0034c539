/// One row of a result, copied out of libpq so it outlives the `PGresult`.
public struct PostgresRow: Sendable {
    /// Column names shared by every row of the result.
    public let columns: PostgresColumns
    /// Raw values in text format; `nil` is SQL `NULL`.
    public let values: [String?]

    /// Decodes the value at `index`. A `NULL` decodes only into an `Optional`.
    public func decode<T: PostgresDecodable>(_ type: T.Type = T.self, at index: Int) throws -> T {
        guard index < values.count else {
            throw PostgresError(code: .decoding, reason: "column index \(index) is out of range (\(values.count) columns)")
        }
        guard let text = values[index] else {
            throw PostgresError(code: .decoding, reason: "column \(columns.names[index]) is NULL; decode as Optional")
        }
        return try T(postgresText: text)
    }

    /// Decodes a nullable value at `index`.
    public func decode<T: PostgresDecodable>(_ type: T?.Type, at index: Int) throws -> T? {
        guard index < values.count else {
            throw PostgresError(code: .decoding, reason: "column index \(index) is out of range (\(values.count) columns)")
        }
        guard let text = values[index] else { return nil }
        return try T(postgresText: text)
    }

    /// Decodes the value of the named column.
    public func decode<T: PostgresDecodable>(_ type: T.Type = T.self, column name: String) throws -> T {
        try decode(T.self, at: try columns.index(of: name))
    }

    /// Decodes the nullable value of the named column.
    public func decode<T: PostgresDecodable>(_ type: T?.Type, column name: String) throws -> T? {
        try decode(T?.self, at: try columns.index(of: name))
    }

    /// The raw text of the named column (`nil` for `NULL`).
    public subscript(column name: String) -> String? {
        guard let index = columns.lookup[name] else { return nil }
        return values[index]
    }
}

/// The column names of a result.
public final class PostgresColumns: Sendable {
    public let names: [String]
    let lookup: [String: Int]

    init(names: [String]) {
        self.names = names
        var lookup = [String: Int]()
        for (index, name) in names.enumerated() where lookup[name] == nil { lookup[name] = index }
        self.lookup = lookup
    }

    func index(of name: String) throws -> Int {
        guard let index = lookup[name] else {
            throw PostgresError(code: .decoding, reason: "the result has no column named \(name)")
        }
        return index
    }
}
