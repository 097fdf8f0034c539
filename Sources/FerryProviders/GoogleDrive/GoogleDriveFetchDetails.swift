import FerryCore

/// The details of a Google Drive fetch job (`ClaimedJob.spec`), as recorded at enqueue or by a folder's fan-out.
public struct GoogleDriveFetchDetails: Codable, Sendable, Equatable {
    /// The local folder every file of this fetch must stay inside.
    public var root: String
    /// Folders: also fetch subfolders (each listed by a child job of its own).
    public var recursive: Bool?
    /// Google Docs, Sheets and Slides: the format to export them to; without it they are refused (a single item) or
    /// skipped (in a folder).
    public var export: GoogleDriveExportFormat?
    /// Expected SHA-256 (hex, lowercase) of a single fetched file.
    public var sha256: String?
    /// `files.list` `pageSize` (1…1000); none means 1000.
    public var requestedPageSize: Int64?
    /// A child a listing enqueued: one file (never listed again), as the listing saw it.
    public var entry: Bool?
    /// A subfolder a listing enqueued: its path below `root` (`2025/Trip`), where its files go.
    public var prefix: String?
    public var listedRevision: String?
    public var listedMD5: String?
    public var listedSize: Int64?
    /// The listed item's type (for exports of children).
    public var listedMimeType: String?

    enum CodingKeys: String, CodingKey {
        case root, recursive, export, sha256, entry, prefix
        case requestedPageSize = "page_size"
        case listedRevision = "revision"
        case listedMD5 = "md5"
        case listedSize = "size"
        case listedMimeType = "mime_type"
    }

    public init(
        root: String, recursive: Bool? = nil, export: GoogleDriveExportFormat? = nil, sha256: String? = nil, requestedPageSize: Int64? = nil,
        entry: Bool? = nil, prefix: String? = nil, listedRevision: String? = nil, listedMD5: String? = nil, listedSize: Int64? = nil,
        listedMimeType: String? = nil
    ) {
        self.root = root
        self.recursive = recursive
        self.export = export
        self.sha256 = sha256
        self.requestedPageSize = requestedPageSize
        self.entry = entry
        self.prefix = prefix
        self.listedRevision = listedRevision
        self.listedMD5 = listedMD5
        self.listedSize = listedSize
        self.listedMimeType = listedMimeType
    }

    public static let defaultPageSize = 1000

    public var isRecursive: Bool { recursive == true }
    public var isEntry: Bool { entry == true }
    public var pageSize: Int { requestedPageSize.map { Int(min(1000, max(1, $0))) } ?? Self.defaultPageSize }
}
