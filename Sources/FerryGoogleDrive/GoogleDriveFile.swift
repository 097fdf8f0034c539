import FerryCore

/// A Drive file resource (a file, a folder or a Google Docs item), as far as Ferry reads it.
public struct GoogleDriveFile: Sendable, Hashable {
    /// What Ferry asks for in `fields` of every file it reads.
    public static let fields = "id,name,mimeType,parents,size,md5Checksum,sha256Checksum,modifiedTime,trashed,headRevisionId"
    /// The MIME type of folders.
    public static let folderMimeType = "application/vnd.google-apps.folder"
    /// The prefix of Google's own types (Docs, Sheets, Slides, folders, shortcuts…): no bytes of their own.
    public static let googleAppsPrefix = "application/vnd.google-apps."

    public var id: String
    public var name: String
    public var mimeType: String
    public var parents: [String]
    /// Bytes; `nil` for folders and Google Docs items (Google sends it as a string).
    public var size: Int64?
    /// Lowercase hex MD5 of the content (binary files only).
    public var md5Checksum: String?
    /// Lowercase hex SHA-256 of the content (binary files only).
    public var sha256Checksum: String?
    /// RFC 3339, as Google writes it (`2025-01-02T03:04:05.000Z`).
    public var modifiedTime: String?
    public var trashed: Bool
    /// The current revision of the content (binary files only): changes with every new content.
    public var headRevisionId: String?

    public init(
        id: String, name: String, mimeType: String, parents: [String] = [], size: Int64? = nil, md5Checksum: String? = nil,
        sha256Checksum: String? = nil, modifiedTime: String? = nil, trashed: Bool = false, headRevisionId: String? = nil
    ) {
        self.id = id
        self.name = name
        self.mimeType = mimeType
        self.parents = parents
        self.size = size
        self.md5Checksum = md5Checksum
        self.sha256Checksum = sha256Checksum
        self.modifiedTime = modifiedTime
        self.trashed = trashed
        self.headRevisionId = headRevisionId
    }

    /// Parses a file resource; `nil` without an `id`.
    public init?(json: JSONValue) {
        guard let id = json["id"]?.stringValue, !id.isEmpty else { return nil }
        self.id = id
        name = json["name"]?.stringValue ?? ""
        mimeType = json["mimeType"]?.stringValue ?? "application/octet-stream"
        parents = json["parents"]?.arrayValue?.compactMap(\.stringValue) ?? []
        size = json["size"]?.stringValue.flatMap { Int64($0) } ?? json["size"]?.intValue
        md5Checksum = json["md5Checksum"]?.stringValue?.lowercased()
        sha256Checksum = json["sha256Checksum"]?.stringValue?.lowercased()
        modifiedTime = json["modifiedTime"]?.stringValue
        trashed = json["trashed"]?.boolValue ?? false
        headRevisionId = json["headRevisionId"]?.stringValue
    }

    public var isFolder: Bool { mimeType == Self.folderMimeType }

    /// A Google Docs, Sheets, Slides (…) item: no bytes to download, only exports.
    public var isGoogleDocument: Bool { mimeType.hasPrefix(Self.googleAppsPrefix) && !isFolder }
}
