import FerryCore

/// Where a folder copy from a provider that lists one folder at a time stands, recorded with each page's children:
/// the folders still to list (id and path below the copied folder) and the continuation within the first. The
/// tree is walked breadth first, within the one job.
struct FolderWalkCursor<Paging: FolderPaging>: Sendable, Equatable {
    struct Folder: Sendable, Equatable {
        var id: String
        /// The folder's path below the copied one, ending in `/` (`""` for the copied folder itself).
        var prefix: String
    }

    var folders: [Folder]
    /// Where the listing of the first folder goes on; `nil` at its first page.
    var continuation: String?
    var listed: Int64 = 0
    var skipped: Int64 = 0

    /// Folders waiting at most: each listed subfolder waits here, so a tree wider than this fails the copy.
    static var maxFolders: Int { 20_000 }

    init(root: String) {
        folders = [Folder(id: root, prefix: "")]
    }

    init?(session text: String?) {
        guard let text, let json = try? JSONValue.parse(text), let queue = json["folders"]?.arrayValue else { return nil }
        folders = queue.compactMap { entry in
            guard let id = entry["id"]?.stringValue, let prefix = entry["prefix"]?.stringValue else { return nil }
            return Folder(id: id, prefix: prefix)
        }
        continuation = json[Paging.continuationKey]?.stringValue
        listed = json["listed"]?.intValue ?? 0
        skipped = json["skipped"]?.intValue ?? 0
    }

    var json: JSONValue {
        var members: [String: JSONValue] = [
            "folders": .array(folders.map { .object(["id": .string($0.id), "prefix": .string($0.prefix)]) }),
            "listed": .int(listed), "skipped": .int(skipped),
        ]
        if let continuation { members[Paging.continuationKey] = .string(continuation) }
        return .object(members)
    }
}
