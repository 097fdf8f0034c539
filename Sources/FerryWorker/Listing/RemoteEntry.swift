import Foundation

/// One file or folder of a remote listing (``RemoteLister``), as the provider states it. Every field is remote
/// input: names may hold any character a service allows (escape sequences too), so whoever shows them escapes them.
public struct RemoteEntry: Sendable, Equatable {
    /// The path below the listed folder, `/`-separated, without a leading or trailing `/` (`2025/a.jpg`). Not checked
    /// as a local path (a key may hold `..` or control characters): whoever writes files by it goes through `SafePath`.
    public var path: String
    /// True for a folder (a common prefix on S3), which has no size.
    public var isFolder: Bool
    /// Bytes, for a file.
    public var size: Int64?
    /// When the provider says the file was last modified.
    public var modified: Date?
    /// The content digests the provider states for the file without reading it (an MD5 ETag, a content hash).
    public var digests: [ContentDigest]
    /// The entry as an endpoint of its provider (`s3:ACCOUNT:bucket/full/key`, a Drive file by id): what a job or a
    /// ``RemoteLister/read(_:logger:into:)`` names it by.
    public var reference: String
    /// What names this version of the file at the service (an ETag, a revision), when it says: a copy made from the
    /// listing can pin its reads to it (``CopySourceDetails/version``).
    public var version: String?

    public init(
        path: String, isFolder: Bool, size: Int64?, modified: Date?, digests: [ContentDigest] = [], reference: String, version: String? = nil
    ) {
        self.path = path
        self.isFolder = isFolder
        self.size = size
        self.modified = modified
        self.digests = digests
        self.reference = reference
        self.version = version
    }

    /// The digest of `kind`, when the provider states one.
    public func digest(_ kind: ContentDigestKind) -> ContentDigest? {
        digests.first { $0.kind == kind }
    }

    /// How many folders deep the entry lies (`a.jpg`: 1, `2025/a.jpg`: 2).
    public var depth: Int {
        path.utf8.reduce(1) { $1 == UInt8(ascii: "/") ? $0 + 1 : $0 }
    }
}
