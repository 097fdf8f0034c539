import FerryCore

/// The details of a Dropbox fetch job (`ClaimedJob.spec`), as recorded at enqueue or by a folder's fan-out.
public struct DropboxFetchDetails: Codable, Sendable, Equatable {
    /// The local folder every file of this fetch must stay inside.
    public var root: String
    /// Folders: also list subfolders.
    public var recursive: Bool?
    /// A `get_thumbnail_v2` size such as `w256h256`: fetch thumbnails instead of the files.
    public var thumbnail: String?
    /// `list_folder` `limit` (1…2000); none means 2000.
    public var requestedPageSize: Int64?
    /// Expected SHA-256 (hex, lowercase) of a single fetched file.
    public var sha256: String?
    /// A child a listing enqueued: always one file, never listed again.
    public var entry: Bool?
    /// What the listing saw (children only), to notice a file that changed since.
    public var listedRev: String?
    public var listedContentHash: String?
    public var listedSize: Int64?

    public static let defaultPageSize = 2000

    enum CodingKeys: String, CodingKey {
        case root, recursive, thumbnail, sha256, entry
        case requestedPageSize = "page_size"
        case listedRev = "rev"
        case listedContentHash = "content_hash"
        case listedSize = "size"
    }

    public init(
        root: String, recursive: Bool? = nil, thumbnail: String? = nil, requestedPageSize: Int64? = nil,
        sha256: String? = nil, entry: Bool? = nil, listedRev: String? = nil, listedContentHash: String? = nil,
        listedSize: Int64? = nil
    ) {
        self.root = root
        self.recursive = recursive
        self.thumbnail = thumbnail
        self.requestedPageSize = requestedPageSize
        self.sha256 = sha256
        self.entry = entry
        self.listedRev = listedRev
        self.listedContentHash = listedContentHash
        self.listedSize = listedSize
    }

    public var isRecursive: Bool { recursive == true }
    public var isEntry: Bool { entry == true }
    public var pageSize: Int { requestedPageSize.map { Int(min(2000, max(1, $0))) } ?? Self.defaultPageSize }
}
