/// Why a JSON text could not be parsed, with the byte offset where it went wrong.
public struct JSONParseError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public let offset: Int

    public var description: String { "\(message) at character \(offset + 1)" }
}
