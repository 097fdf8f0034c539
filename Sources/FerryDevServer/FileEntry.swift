import FerryCore

/// One file or folder in an account's in-memory index.
struct FileEntry: Sendable {
    enum Kind: Sendable { case file, folder }

    var kind: Kind
    /// Cased path as stored (`path_display`), also the on-disk location under the account folder.
    var pathDisplay: String
    var id: String
    var size: Int64 = 0
    var rev: String = ""
    /// Already formatted, so listing 20,000 entries does no date math.
    var clientModified: String = ""
    var serverModified: String = ""
    var contentHash: String = ""
    /// Change sequence number within the account; drives `list_folder/continue` after a full listing.
    var sequence: UInt64
    /// Set for a seeded file whose bytes are not on disk yet (see ``SeededContent``).
    var seeded: SeededContent? = nil

    var pathLower: String { DropboxPath.lowerKey(pathDisplay) }
    var name: String {
        var path = pathDisplay
        return path.withUTF8 { bytes in
            var start = bytes.count
            while start > 0, bytes[start - 1] != UInt8(ascii: "/") { start -= 1 }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start...]), as: UTF8.self)
        }
    }
    var isFile: Bool { kind == .file }

    /// Metadata JSON; `tagged` adds `.tag` as used inside `list_folder` entries and
    /// `get_metadata` (which returns the `Metadata` union), omitted for plain `FileMetadata` results.
    func metadata(tagged: Bool) -> JSONValue {
        var members: [String: JSONValue] = [:]
        if tagged { members[".tag"] = .string(kind == .file ? "file" : "folder") }
        members["name"] = .string(name)
        members["path_lower"] = .string(pathLower)
        members["path_display"] = .string(pathDisplay)
        members["id"] = .string(id)
        if kind == .file {
            members["client_modified"] = .string(clientModified)
            members["server_modified"] = .string(serverModified)
            members["rev"] = .string(rev)
            members["size"] = .int(size)
            members["is_downloadable"] = .bool(true)
            members["content_hash"] = .string(contentHash)
        }
        return .object(members)
    }
}
