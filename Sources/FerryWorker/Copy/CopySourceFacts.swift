import FerryCore
import Foundation

/// What a copy knows of its source's current version before moving a byte.
struct CopySourceFacts: Sendable, Equatable {
    var size: Int64
    /// What names this version (S3 ETag, Dropbox `rev`): recorded with the destination's resume state, so a
    /// resumed copy keeps parts only of the same version.
    var version: String
    /// When the source was last modified, if the provider says (S3 `Last-Modified`, Dropbox `client_modified`).
    var modified: Date?
    /// The MD5 of the whole object, when the provider gives it (an S3 plain ETag).
    var md5: String?
    /// Dropbox's `content_hash`, when the source is a Dropbox file.
    var dropboxContentHash: String?

    /// The modification time in whole seconds since 1970 (what Dropbox's `client_modified` keeps).
    var modifiedSeconds: Int64? { modified.map { Int64($0.timeIntervalSince1970.rounded(.down)) } }

    /// The result details every copy reports about its source.
    var resultDetails: [String: JSONValue] {
        var details: [String: JSONValue] = ["source_size": .int(size), "source_version": .string(version)]
        if let md5 { details["source_md5"] = .string(md5) }
        if let dropboxContentHash { details["source_content_hash"] = .string(dropboxContentHash) }
        return details
    }
}
