import Crypto
import FerryCore
import FerryProviders
import FerryStore

/// How a folder copy's listing turns one listed file into a child copy: the file's path below the listed folder,
/// joined to the destination folder, with the listed facts of that version.
///
/// With `if_changed` (the default for copies) a child is keyed by the folder pair and the file's path and version,
/// so the same folder copied again to the same place enqueues only files whose source changed since (an unchanged
/// file's child exists under its key and costs no event); without it, by the parent job and the path.
public struct CopyTarget: Sendable {
    public let job: ClaimedJob
    public let from: CopySourceDetails
    /// The parent's destination details (the upload options), which every child carries.
    public let details: [String: JSONValue]
    /// The folder pair's key, when unchanged files are not enqueued again.
    public let treeKey: String?
    /// Lists the destination folder for the pages of children (which files it does not hold yet); nil when the
    /// copy replaces whatever is there (no child looks then).
    public var destination: (any CopyDestinationIndex)?
    /// Whether the destination's provider can write a file at a child's destination.
    let accepts: @Sendable (String) -> Bool

    init(job: ClaimedJob, from: CopySourceDetails, accepts: @escaping @Sendable (String) -> Bool) {
        self.job = job
        self.from = from
        self.accepts = accepts
        var details = (try? JSONValue.parse(job.spec))?.objectValue ?? [:]
        for key in [CopySourceDetails.specKey, ListingFilter.specKey, "parent"] { details[key] = nil }
        self.details = details
        treeKey = details["if_changed"] == .bool(true)
            ? TreeUploadHandler.hex(SHA256.hash(data: Array("copy\u{0}\(job.source)\u{0}\(job.destination)\u{0}\(job.account ?? "")\u{0}\(from.account)".utf8))).prefix(24).description
            : nil
    }

    /// The child copying the file at `relative` below the listed folder (its source written `source`), or `nil`
    /// when the destination cannot hold that name (too long, `..`, a name the destination refuses).
    public func child(relative: String, source: String, listed: CopySourceDetails) -> FanOutChild? {
        let destination = job.destination + relative
        // The destination's own syntax check, as enqueue would have made it.
        guard accepts(destination) else { return nil }
        var childDetails = details
        childDetails[CopySourceDetails.specKey] = (try? JSONValue(encoding: listed)) ?? .null
        let file = TreeUploadHandler.hex(SHA256.hash(data: Array("\(relative)\u{0}\(listed.version ?? "")".utf8))).prefix(32)
        let key = treeKey.map { "copy:\($0):\(file)" } ?? job.jobID.uuidString.lowercased() + "/" + file
        return FanOutChild(
            kind: .copy, source: source, destination: destination, account: job.account, idempotencyKey: key,
            metadata: .object(["path": .string(relative)]), bytesTotal: listed.size, details: childDetails)
    }
}
