import FerryCore
import Foundation

/// One file, folder or Google Docs item of an emulated Drive account.
struct GoogleDriveItem: Sendable, Equatable {
    var id: String
    var account: String
    var name: String
    var mimeType: String
    /// Folder ids; empty only for an account's root.
    var parents: [String]
    /// Creation order across the server: listings are ordered by it.
    var sequence: Int64
    var createdTime: Date
    var modifiedTime: Date
    var trashed = false
    /// Content of binary files (`nil` for folders and Google Docs items).
    var content: Content?

    /// The stored bytes of the head revision.
    struct Content: Sendable, Equatable {
        var revision: String
        var size: Int64
        var md5: String
        var sha256: String
    }

    static let folderMimeType = "application/vnd.google-apps.folder"

    var isFolder: Bool { mimeType == Self.folderMimeType }
    var isGoogleDocument: Bool { mimeType.hasPrefix("application/vnd.google-apps.") && !isFolder }

    /// The file resource, as Drive v3 answers it (every field Ferry and the official client read).
    var json: JSONValue {
        var members: [String: JSONValue] = [
            "kind": .string("drive#file"), "id": .string(id), "name": .string(name), "mimeType": .string(mimeType),
            "parents": .array(parents.map(JSONValue.string)), "trashed": .bool(trashed),
            "createdTime": .string(GoogleTime.format(createdTime)), "modifiedTime": .string(GoogleTime.format(modifiedTime)),
        ]
        if let content {
            // Google sends sizes as strings (int64 in JSON).
            members["size"] = .string(String(content.size))
            members["md5Checksum"] = .string(content.md5)
            members["sha256Checksum"] = .string(content.sha256)
            members["headRevisionId"] = .string(content.revision)
        }
        return .object(members)
    }

    /// The journal's record of the item (the resource plus what the store keeps beside it).
    var record: JSONValue {
        guard case .object(var members) = json else { return json }
        members["account"] = .string(account)
        members["sequence"] = .int(sequence)
        return .object(members)
    }

    /// Reads a journal record back.
    init?(record json: JSONValue) {
        guard let id = json["id"]?.stringValue, let account = json["account"]?.stringValue, let name = json["name"]?.stringValue,
            let mimeType = json["mimeType"]?.stringValue, let sequence = json["sequence"]?.intValue,
            let created = json["createdTime"]?.stringValue.flatMap(GoogleTime.parse),
            let modified = json["modifiedTime"]?.stringValue.flatMap(GoogleTime.parse)
        else { return nil }
        self.init(
            id: id, account: account, name: name, mimeType: mimeType, parents: json["parents"]?.arrayValue?.compactMap(\.stringValue) ?? [],
            sequence: sequence, createdTime: created, modifiedTime: modified, trashed: json["trashed"]?.boolValue ?? false)
        if let revision = json["headRevisionId"]?.stringValue, let size = json["size"]?.stringValue.flatMap({ Int64($0) }),
            let md5 = json["md5Checksum"]?.stringValue, let sha256 = json["sha256Checksum"]?.stringValue
        {
            content = Content(revision: revision, size: size, md5: md5, sha256: sha256)
        }
    }

    init(
        id: String, account: String, name: String, mimeType: String, parents: [String], sequence: Int64, createdTime: Date,
        modifiedTime: Date, trashed: Bool = false, content: Content? = nil
    ) {
        self.id = id
        self.account = account
        self.name = name
        self.mimeType = mimeType
        self.parents = parents
        self.sequence = sequence
        self.createdTime = createdTime
        self.modifiedTime = modifiedTime
        self.trashed = trashed
        self.content = content
    }
}
