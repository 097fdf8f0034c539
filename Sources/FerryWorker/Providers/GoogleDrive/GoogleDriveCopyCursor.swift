import FerryCore

/// Where a folder copy from Drive stands, recorded with each page's children: the folders still to list (id and
/// path below the copied folder) and the page token within the first. Drive lists one folder at a time, so the
/// tree is walked here, breadth first, within the one job.
struct GoogleDriveCopyCursor: Sendable, Equatable {
    struct Folder: Sendable, Equatable {
        var id: String
        /// The folder's path below the copied one, ending in `/` (`""` for the copied folder itself).
        var prefix: String
    }

    var folders: [Folder]
    var pageToken: String?
    var listed: Int64 = 0
    var skipped: Int64 = 0

    /// Folders waiting at most: each listed subfolder waits here, so a tree wider than this fails the copy.
    static let maxFolders = 20_000

    init(root: String) {
        folders = [Folder(id: root, prefix: "")]
    }

    init?(session text: String?) {
        guard let text, let json = try? JSONValue.parse(text), let queue = json["folders"]?.arrayValue else { return nil }
        folders = queue.compactMap { entry in
            guard let id = entry["id"]?.stringValue, let prefix = entry["prefix"]?.stringValue else { return nil }
            return Folder(id: id, prefix: prefix)
        }
        pageToken = json["page_token"]?.stringValue
        listed = json["listed"]?.intValue ?? 0
        skipped = json["skipped"]?.intValue ?? 0
    }

    var json: JSONValue {
        var members: [String: JSONValue] = [
            "folders": .array(folders.map { .object(["id": .string($0.id), "prefix": .string($0.prefix)]) }),
            "listed": .int(listed), "skipped": .int(skipped),
        ]
        if let pageToken { members["page_token"] = .string(pageToken) }
        return .object(members)
    }
}
