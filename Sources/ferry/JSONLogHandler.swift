import FerryCore
import Foundation
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// One JSON object per line on stderr, for log shippers (`--log-format json`): `time` in UTC to the millisecond,
/// `level`, `logger`, `message`, then the metadata with numbers as numbers (`"offset": 8388608`, not a string),
/// nested metadata as objects and arrays.
struct JSONLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var object: [String: JSONValue] = [:]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 }) {
            object[key] = Self.textualKeys.contains(key) ? .string(Self.text(value)) : Self.json(value)
        }
        object["time"] = .string(Self.timestamp())
        object["level"] = .string(event.level.rawValue)
        object["message"] = .string("\(event.message)")
        object["logger"] = .string(label)
        FileHandle.standardError.write(Data((JSONValue.object(object).jsonText + "\n").utf8))
    }

    /// Fields that name things: always text, whatever their value looks like (a batch named `2024` must not be a
    /// number on one line and a string on the next, or log queries on the field break).
    static let textualKeys: Set<String> = [
        "job", "job_id", "job_ids", "batch", "queue", "queues", "account", "worker", "name", "path", "source", "destination",
        "file", "key", "schedule", "kind", "handler", "action", "error", "reason", "rev", "trace_id", "span_id",
        "version", "provider", "route", "label",
    ]

    /// A metadata value as plain text.
    static func text(_ value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let text): return text
        default: return "\(value)"
        }
    }

    /// Metadata as JSON: text that is an integer or a fixed-point decimal becomes a number (metadata is mostly
    /// interpolated text, `"\(offset)"`), so log queries can compare and sum; everything else stays text. A field
    /// keeps one type on every line: `"0.30"` and `"0.15"` are both numbers.
    static func json(_ value: Logger.Metadata.Value) -> JSONValue {
        switch value {
        case .string(let text): return number(text) ?? .string(text)
        case .stringConvertible(let convertible):
            switch convertible {
            case let integer as any BinaryInteger: return Int64(exactly: integer).map(JSONValue.int) ?? .string("\(integer)")
            case let double as Double where double.isFinite: return .double(double)
            default: return number("\(convertible)") ?? .string("\(convertible)")
            }
        case .array(let values): return .array(values.map(json))
        case .dictionary(let values): return .object(values.mapValues(json))
        }
    }

    /// A number when the text is a plain integer or fixed-point decimal (no leading zeros before the point, no `+`,
    /// spaces or exponent), so ids such as `007` keep their text while `0.30` is a number like `0.15`.
    static func number(_ text: String) -> JSONValue? {
        guard !text.isEmpty, text.count <= 20 else { return nil }
        if let integer = Int64(text), String(integer) == text { return .int(integer) }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let whole = Int64(parts[0]), String(whole) == parts[0] || parts[0] == "-0",
            !parts[1].isEmpty, parts[1].allSatisfy({ $0.isASCII && $0.isNumber }), let double = Double(text), double.isFinite
        else { return nil }
        return .double(double)
    }

    /// `2026-11-24T18:20:05.123Z`.
    static func timestamp(_ date: Date = Date()) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var seconds = time_t(milliseconds / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
            Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), Int(milliseconds % 1000))
    }
}
