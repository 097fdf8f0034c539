import FerryCore
import FerryWorker
import Foundation

/// How listed entries are printed. Every name is remote input: text lines show control characters as `\u{…}`
/// escapes (``TablePrinter/printable(_:)``), JSON escapes them as JSON does; nothing reaches the terminal raw.
enum ListingPrinter {
    /// `ferry ls`: the size right-aligned in nine columns, then the path (rclone's layout).
    static func sizeAndPath(_ entry: RemoteEntry) -> String {
        let size = String(entry.size ?? 0)
        return String(repeating: " ", count: max(0, 9 - size.count)) + size + " " + TablePrinter.printable(entry.path)
    }

    /// `ferry lsf`: the fields `format` names (`p` path, `s` size, `t` modification time, `h` digests), joined by
    /// `separator`; a folder's path ends in `/`.
    static func fields(_ entry: RemoteEntry, format: String, separator: String) -> String {
        format.map { letter -> String in
            switch letter {
            case "p": return TablePrinter.printable(entry.isFolder ? entry.path + "/" : entry.path)
            case "s": return entry.isFolder ? "-1" : String(entry.size ?? 0)
            case "t": return entry.modified.map(timestamp) ?? ""
            case "h": return entry.digests.map { "\($0.kind.name):\($0.value)" }.joined(separator: ",")
            default: return ""
            }
        }.joined(separator: separator)
    }

    /// One JSON Lines object: `path`, `is_dir`, `size`, `modified` (UTC), `hashes` (kind → value).
    static func json(_ entry: RemoteEntry) -> String {
        var object: [String: JSONValue] = ["path": .string(entry.path), "is_dir": .bool(entry.isFolder)]
        object["size"] = entry.size.map(JSONValue.int) ?? .null
        object["modified"] = entry.modified.map { .string(timestamp($0)) } ?? .null
        object["hashes"] = .object(Dictionary(entry.digests.map { ($0.kind.name, JSONValue.string($0.value)) }) { first, _ in first })
        return JSONValue.object(object).jsonText(.asciiOnly, leadingKeys: ["path"])
    }

    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: false))
    }

    /// Checks an `lsf --format` value: letters from `pst h`, each at most once.
    static func checkFormat(_ format: String) throws {
        guard !format.isEmpty, format.allSatisfy({ "psth".contains($0) }), Set(format).count == format.count else {
            throw CLIUsageError(message: "--format takes letters p (path), s (size), t (modification time) and h (digests), each once, such as --format pst")
        }
    }
}
