import FerryCore

/// What a `copy` job knows about its source, kept in its spec under `from` (the destination's upload details sit
/// at the top level, as an upload's do): the provider and account it is read with, whether it is a folder the
/// worker lists, and for one file listed by a folder copy the facts the listing saw.
public struct CopySourceDetails: Codable, Sendable, Equatable {
    /// The source's provider (`dropbox`, `s3`).
    public var provider: String
    /// The account the source is read with.
    public var account: String
    /// The source is a folder (a Dropbox folder or an S3 prefix): the job lists it and fans out a copy per file.
    public var folder: Bool?
    /// Listed facts of one file (children of a folder copy): size, version (S3 ETag, Dropbox `rev`), Dropbox
    /// `content_hash`, and modification time (ISO 8601).
    public var size: Int64?
    public var version: String?
    public var contentHash: String?
    public var modified: String?
    /// The folder copy's listing of the destination held nothing at this file's place (children only): the first
    /// attempt writes without looking there first. A hint, never a permission: wrong, it costs a copy of the same
    /// content, as `if_changed: false` would.
    public var destinationAbsent: Bool?

    public init(
        provider: String, account: String, folder: Bool? = nil, size: Int64? = nil, version: String? = nil,
        contentHash: String? = nil, modified: String? = nil, destinationAbsent: Bool? = nil
    ) {
        self.provider = provider
        self.account = account
        self.folder = folder
        self.size = size
        self.version = version
        self.contentHash = contentHash
        self.modified = modified
        self.destinationAbsent = destinationAbsent
    }

    enum CodingKeys: String, CodingKey {
        case provider, account, folder, size, version, modified
        case contentHash = "content_hash"
        case destinationAbsent = "to_absent"
    }

    /// The spec key the details travel under.
    public static let specKey = "from"
}
