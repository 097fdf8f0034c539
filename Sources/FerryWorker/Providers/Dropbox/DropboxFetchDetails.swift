import FerryCore
import FerryStore
import Foundation

/// The details of a Dropbox fetch job (`ClaimedJob.spec`), as recorded at enqueue or by a folder's fan-out.
struct DropboxFetchDetails: Codable, Sendable, Equatable {
    /// The local folder every file of this fetch must stay inside.
    var root: String
    /// Folders: also list subfolders.
    var recursive: Bool?
    /// A `get_thumbnail_v2` size such as `w256h256`: fetch thumbnails instead of the files.
    var thumbnail: String?
    /// `list_folder` `limit` (1…2000); none means 2000.
    var requestedPageSize: Int64?
    /// Expected SHA-256 (hex, lowercase) of a single fetched file.
    var sha256: String?
    /// A child a listing enqueued: always one file, never listed again.
    var entry: Bool?
    /// What the listing saw (children only), to notice a file that changed since.
    var listedRev: String?
    var listedContentHash: String?
    var listedSize: Int64?

    static let defaultPageSize = 2000

    enum CodingKeys: String, CodingKey {
        case root, recursive, thumbnail, sha256, entry
        case requestedPageSize = "page_size"
        case listedRev = "rev"
        case listedContentHash = "content_hash"
        case listedSize = "size"
    }

    init(
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

    /// Reads a claimed job's details; a missing or relative `root` fails the job for good (it was enqueued wrong).
    init(job: ClaimedJob) throws {
        self = try job.details(as: Self.self)
        guard root.hasPrefix("/") else {
            throw JobFailure.permanent("bad_details", "the fetch job has no local root folder")
        }
        sha256 = sha256?.lowercased()
    }

    var isRecursive: Bool { recursive == true }
    var isEntry: Bool { entry == true }
    var pageSize: Int { requestedPageSize.map { Int(min(2000, max(1, $0))) } ?? Self.defaultPageSize }
}
