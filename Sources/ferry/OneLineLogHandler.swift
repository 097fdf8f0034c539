import Foundation
import Logging

/// Text logs one record per line: libpq's messages come over several lines (`… failed: Connection refused` then
/// a tab and `Is the server running …?`), which split a record in two for grep and for log shippers. Line breaks
/// (and the indentation after them) in the message and metadata become "; ".
struct OneLineLogHandler: LogHandler {
    var inner: any LogHandler

    var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { inner.metadataProvider }
        set { inner.metadataProvider = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        var event = event
        event.message = Logger.Message(stringLiteral: Self.oneLine(event.message.description))
        event.metadata = event.metadata?.mapValues(Self.oneLine)
        inner.log(event: event)
    }

    static func oneLine(_ value: Logger.Metadata.Value) -> Logger.Metadata.Value {
        switch value {
        case .string(let text): .string(oneLine(text))
        case .stringConvertible(let item): .string(oneLine(item.description))
        case .array(let items): .array(items.map(oneLine))
        case .dictionary(let entries): .dictionary(entries.mapValues(oneLine))
        }
    }

    /// `a\n\tb\n` → `a; b`.
    static func oneLine(_ text: String) -> String {
        guard text.contains(where: \.isNewline) else { return text }
        return text.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
            .joined(separator: "; ")
    }
}
