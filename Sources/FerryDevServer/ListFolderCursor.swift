import FerryCore
import Foundation

/// The opaque `list_folder` cursor: while paging it remembers the last key returned; after
/// the listing is complete it remembers the change sequence so `continue` yields changes,
/// as Dropbox cursors do.
struct ListFolderCursor: Sendable, Equatable {
    var account: String
    var folderLower: String
    var recursive: Bool
    var limit: Int
    /// Last key returned while the initial listing is still in progress; `nil` once complete.
    var lastKey: String?
    /// The initial listing is complete; `continue` now returns changes after `sequence`.
    var isChangeFeed = false
    /// Change sequence at which the listing started (or was last brought up to date).
    var sequence: UInt64
    /// Account cursor generation; a mismatch means `reset`.
    var generation: Int
    /// Server instance; sequences restart with the process, so older cursors are `reset`.
    var epoch: String

    func encoded() -> String {
        var members: [String: JSONValue] = [
            "a": .string(account), "f": .string(folderLower), "r": .bool(recursive), "l": .int(Int64(limit)),
            "c": .bool(isChangeFeed), "s": .string(String(sequence)), "g": .int(Int64(generation)), "e": .string(epoch),
        ]
        if let lastKey { members["k"] = .string(lastKey) }
        return "AAF" + Data(JSONValue.object(members).jsonText.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: String) -> ListFolderCursor? {
        guard text.hasPrefix("AAF") else { return nil }
        var base64 = String(text.dropFirst(3)).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64), let json = try? JSONValue.parse(utf8: Array(data)),
              let account = json["a"]?.stringValue, let folder = json["f"]?.stringValue,
              let recursive = json["r"]?.boolValue, let limit = json["l"]?.intValue,
              let sequence = json["s"]?.stringValue.flatMap({ UInt64($0) }),
              let generation = json["g"]?.intValue, let epoch = json["e"]?.stringValue
        else { return nil }
        var cursor = ListFolderCursor(account: account, folderLower: folder, recursive: recursive, limit: Int(limit),
                                      lastKey: json["k"]?.stringValue, sequence: sequence, generation: Int(generation), epoch: epoch)
        cursor.isChangeFeed = json["c"]?.boolValue ?? false
        return cursor
    }
}
