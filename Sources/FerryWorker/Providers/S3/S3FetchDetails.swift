/// The details of an S3 fetch job: one object, or a prefix listed into one child per object.
struct S3FetchDetails: Codable, Sendable, Equatable {
    /// The local folder every file of this fetch must stay inside.
    var root: String
    /// Prefixes: also list "subfolders" (keys with a `/` after the prefix).
    var recursive: Bool?
    /// `max-keys` per ListObjectsV2 page (1…1000); none means 1000.
    var requestedPageSize: Int64?
    /// Expected SHA-256 (hex, lowercase) of a single object.
    var sha256: String?
    /// A child a listing enqueued: always one object, never listed again.
    var entry: Bool?
    /// What the listing saw (children only): the object must still be this version.
    var listedETag: String?
    var listedSize: Int64?

    enum CodingKeys: String, CodingKey {
        case root, recursive, sha256, entry
        case requestedPageSize = "page_size"
        case listedETag = "etag"
        case listedSize = "size"
    }

    var pageSize: Int { requestedPageSize.map { Int(min(1000, max(1, $0))) } ?? 1000 }
}
