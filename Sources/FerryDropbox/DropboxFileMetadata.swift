import FerryCore
/// Dropbox `FileMetadata`: the result of a commit, of `get_metadata` on a file, and of downloads.
public struct DropboxFileMetadata: Sendable, Hashable {
    public var name: String
    /// Lowercased path; empty when Dropbox omits it (a file outside the user's tree).
    public var pathLower: String
    /// Path as cased by the user; empty when Dropbox omits it.
    public var pathDisplay: String
    /// `id:...`, stable across renames.
    public var id: String
    /// Revision, used by ``DropboxCommitInfo/Mode/update(_:)``.
    public var rev: String
    public var size: Int64
    /// Dropbox content hash (see ``DropboxContentHasher``).
    public var contentHash: String?
    /// `%Y-%m-%dT%H:%M:%SZ`, as sent by Dropbox.
    public var serverModified: String
    /// `%Y-%m-%dT%H:%M:%SZ`, as sent by Dropbox.
    public var clientModified: String

    public init(
        name: String, pathLower: String, pathDisplay: String, id: String, rev: String, size: Int64,
        contentHash: String?, serverModified: String, clientModified: String
    ) {
        self.name = name
        self.pathLower = pathLower
        self.pathDisplay = pathDisplay
        self.id = id
        self.rev = rev
        self.size = size
        self.contentHash = contentHash
        self.serverModified = serverModified
        self.clientModified = clientModified
    }

    /// Parses a `FileMetadata` object, plain or tagged (`.tag: "file"`, as in listings and
    /// `get_metadata`). `nil` for other tags or when a required field is missing.
    public init?(json: JSONValue) {
        guard case .object = json else { return nil }
        if let tag = json[".tag"]?.stringValue, tag != "file" { return nil }
        guard let name = json["name"]?.stringValue,
              let id = json["id"]?.stringValue,
              let rev = json["rev"]?.stringValue,
              let size = json["size"]?.intValue,
              let serverModified = json["server_modified"]?.stringValue,
              let clientModified = json["client_modified"]?.stringValue
        else { return nil }
        self.init(
            name: name, pathLower: json["path_lower"]?.stringValue ?? "", pathDisplay: json["path_display"]?.stringValue ?? "",
            id: id, rev: rev, size: size, contentHash: json["content_hash"]?.stringValue,
            serverModified: serverModified, clientModified: clientModified)
    }
}
