import Foundation

/// A `json`/`jsonb` value carried as its JSON text.
///
/// Encode Swift values with `init(encoding:)` and decode with `decode(_:)`; the raw text is available for
/// comparisons and for passing through unchanged.
public struct PostgresJSON: PostgresBindable, PostgresDecodable, Hashable {
    /// The JSON document as text.
    public var text: String

    public init(text: String) { self.text = text }

    public init(postgresText text: String) { self.text = text }

    /// Encodes a value with sorted keys so equal values give equal text.
    public init<T: Encodable>(encoding value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        self.text = String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    public var postgresText: String? { text }

    /// Decodes the JSON into `T`.
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(text.utf8))
        } catch {
            throw PostgresError(code: .decoding, reason: "a JSON column could not be decoded as \(T.self)")
        }
    }

    /// The JSON parsed into Foundation objects (dictionaries, arrays, strings, numbers, `NSNull`).
    public func object() throws -> Any {
        try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    }
}
