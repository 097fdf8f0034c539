/// The details of a OneDrive fetch job, as recorded at enqueue or by a folder's fan-out.
public struct OneDriveFetchDetails: Codable, Sendable, Equatable {
    /// The local folder every file of this fetch must stay inside.
    public var root: String
    /// Folders: also fetch subfolders (each listed by a child job of its own).
    public var recursive: Bool?
    /// Expected SHA-256 (hex, lowercase) of a single fetched file.
    public var sha256: String?
    /// Children per page (`$top`, 1…1000); none means 1000.
    public var requestedPageSize: Int64?
    /// A child a listing enqueued: one file (never listed again).
    public var entry: Bool?
    /// A subfolder a listing enqueued: its path below `root`, where its files go.
    public var prefix: String?
    /// What the listing saw of a child file: its content tag, QuickXorHash and size.
    public var listedVersion: String?
    public var listedQuickXor: String?
    public var listedSize: Int64?

    enum CodingKeys: String, CodingKey {
        case root, recursive, sha256, entry, prefix
        case requestedPageSize = "page_size"
        case listedVersion = "version"
        case listedQuickXor = "quick_xor"
        case listedSize = "size"
    }

    public init(
        root: String, recursive: Bool? = nil, sha256: String? = nil, requestedPageSize: Int64? = nil, entry: Bool? = nil, prefix: String? = nil,
        listedVersion: String? = nil, listedQuickXor: String? = nil, listedSize: Int64? = nil
    ) {
        self.root = root
        self.recursive = recursive
        self.sha256 = sha256
        self.requestedPageSize = requestedPageSize
        self.entry = entry
        self.prefix = prefix
        self.listedVersion = listedVersion
        self.listedQuickXor = listedQuickXor
        self.listedSize = listedSize
    }

    public static let defaultPageSize = 1000

    public var isRecursive: Bool { recursive == true }
    public var pageSize: Int { requestedPageSize.map { Int(min(1000, max(1, $0))) } ?? Self.defaultPageSize }
}
