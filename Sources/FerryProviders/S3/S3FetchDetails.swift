/// The details of an S3 fetch job: one object, or a prefix listed into one child per object.
public struct S3FetchDetails: Codable, Sendable, Equatable {
    /// The local folder every file of this fetch must stay inside.
    public var root: String
    /// Prefixes: also list "subfolders" (keys with a `/` after the prefix).
    public var recursive: Bool?
    /// `max-keys` per ListObjectsV2 page (1…1000); none means 1000.
    public var requestedPageSize: Int64?
    /// Expected SHA-256 (hex, lowercase) of a single object.
    public var sha256: String?
    /// A child a listing enqueued: always one object, never listed again.
    public var entry: Bool?
    /// What the listing saw (children only): the object must still be this version.
    public var listedETag: String?
    public var listedSize: Int64?
    /// The listing's `LastModified` (ISO 8601): with the size, how a multipart object already fetched is known.
    public var listedModified: String?

    enum CodingKeys: String, CodingKey {
        case root, recursive, sha256, entry
        case requestedPageSize = "page_size"
        case listedETag = "etag"
        case listedSize = "size"
        case listedModified = "modified"
    }

    public var pageSize: Int { requestedPageSize.map { Int(min(1000, max(1, $0))) } ?? 1000 }

    public init(
        root: String, recursive: Bool? = nil, requestedPageSize: Int64? = nil, sha256: String? = nil, entry: Bool? = nil,
        listedETag: String? = nil, listedSize: Int64? = nil, listedModified: String? = nil
    ) {
        self.root = root
        self.recursive = recursive
        self.requestedPageSize = requestedPageSize
        self.sha256 = sha256
        self.entry = entry
        self.listedETag = listedETag
        self.listedSize = listedSize
        self.listedModified = listedModified
    }
}
