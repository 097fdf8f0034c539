import FerryCore
import Foundation

/// What a copy knows of its source's current version before moving a byte.
public struct CopySourceFacts: Sendable, Equatable {
    public var size: Int64
    /// What names this version (an object's ETag, a file's revision): recorded with the destination's resume
    /// state, so a resumed copy keeps parts only of the same version.
    public var version: String
    /// When the source was last modified, if the provider says.
    public var modified: Date?
    /// The MD5 of the whole file, when the provider gives it (a plain object ETag, a stored checksum).
    public var md5: String?
    /// The source provider's own content digest, when it states one.
    public var digest: ContentDigest?

    public init(size: Int64, version: String, modified: Date? = nil, md5: String? = nil, digest: ContentDigest? = nil) {
        self.size = size
        self.version = version
        self.modified = modified
        self.md5 = md5
        self.digest = digest
    }

    /// The modification time in whole seconds since 1970.
    public var modifiedSeconds: Int64? { modified.map { Int64($0.timeIntervalSince1970.rounded(.down)) } }

    /// The result details every copy reports about its source.
    public var resultDetails: [String: JSONValue] {
        var details: [String: JSONValue] = ["source_size": .int(size), "source_version": .string(version)]
        if let md5 { details["source_md5"] = .string(md5) }
        if let digest { details["source_content_hash"] = .string(digest.value) }
        return details
    }
}
