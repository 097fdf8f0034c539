import FerryCore
import Foundation

/// The handler details of a Dropbox fetch job (`ClaimedJob.spec`), as recorded at enqueue or by a fan-out.
struct DropboxFetchDetails: Sendable, Equatable {
    /// The local folder every file of this fetch must stay inside.
    var root: String
    var recursive: Bool
    /// A `get_thumbnail_v2` size such as `w256h256`: fetch thumbnails instead of the files.
    var thumbnail: String?
    /// `list_folder` `limit` (1…2000).
    var pageSize: Int
    /// Expected SHA-256 (hex, lowercase) of a single fetched file.
    var sha256: String?
    /// A child a listing enqueued: always one file, never listed again.
    var isEntry: Bool
    /// What the listing saw (children only), to notice a file that changed since.
    var listedRev: String?
    var listedContentHash: String?
    var listedSize: Int64?

    static let defaultPageSize = 2000

    /// Parses the details; a missing or unusable `root` fails the job for good (it was enqueued wrong).
    init(spec: String) throws {
        let json = (try? JSONValue.parse(spec)) ?? .object([:])
        guard let root = json["root"]?.stringValue, root.hasPrefix("/") else {
            throw JobFailure.permanent("bad_details", "the fetch job has no local root folder")
        }
        self.root = root
        recursive = json["recursive"] == .bool(true)
        thumbnail = json["thumbnail"]?.stringValue
        pageSize = json["page_size"]?.intValue.map { Int(min(2000, max(1, $0))) } ?? Self.defaultPageSize
        sha256 = json["sha256"]?.stringValue?.lowercased()
        isEntry = json["entry"] == .bool(true)
        listedRev = json["rev"]?.stringValue
        listedContentHash = json["content_hash"]?.stringValue
        listedSize = json["size"]?.intValue
    }
}
