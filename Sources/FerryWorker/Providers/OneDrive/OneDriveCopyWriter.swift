import FerryCore
import FerryOneDrive
import FerryProviders
import FerryStore
import Foundation
import Logging

/// Writes copies to OneDrive with the upload's protocol (``OneDriveUpload``: a simple upload for small files, upload
/// sessions recorded as progress for large ones, the mode and `existing` policy deciding about a file there), each
/// range read from the source as it goes up.
struct OneDriveCopyWriter: CopyWriter {
    let uploads: OneDriveUploadHandler

    var provider: String { "onedrive" }

    func accepts(fileDestination destination: String) -> Bool {
        guard let location = try? OneDriveLocation(destination, field: "to", line: nil), let path = location.path else { return false }
        return !path.hasSuffix("/") && !OneDriveLocation.components(of: path).isEmpty
    }

    func look(_ job: ClaimedJob, source: any CopySource, context: JobContext) async throws -> CopyDestinationLook {
        let location = try OneDriveLocation(job: job.destination)
        guard let path = location.path else { return .absent }
        let caller = OneDriveCaller(account: location.account, tokens: uploads.tokens, logger: context.logger)
        let item: OneDriveItem
        do {
            item = try await caller.call("looking at \(path)") { client, token in try await client.item(path: path, accessToken: token) }
        } catch let error as OneDriveError where error.code == .notFound {
            return .absent
        } catch let error as OneDriveError {
            throw error.jobFailure(doing: "looking at \(path)")
        }
        guard !item.isFolder else { return .absent }
        let facts = source.facts
        let found: [String: JSONValue] = ["id": .string(item.id), "size": .int(item.size ?? 0), "quick_xor": .string(item.quickXorHash ?? "")]
        let same: Bool
        if item.size != facts.size {
            same = false
        } else if let hash = Self.quickXor(of: facts) {
            same = item.quickXorHash == hash
        } else if let seconds = facts.modifiedSeconds, let stored = OneDriveTime.parse(item.modified) {
            same = Int64(stored.timeIntervalSince1970.rounded(.down)) == seconds
        } else {
            same = false
        }
        return same ? .same(found) : .different(version: item.version ?? item.id, details: found)
    }

    func write(_ job: ClaimedJob, source: any CopySource, seen: String?, context: JobContext) async throws -> JobResult {
        let location = try OneDriveLocation(job: job.destination)
        guard let path = location.path, !OneDriveLocation.components(of: path).isEmpty else {
            throw JobFailure.permanent("bad_location", "a copy names a file path: onedrive:ACCOUNT:/folder/name")
        }
        let facts = source.facts
        var details = try job.details(as: OneDriveUploadDetails.self)
        // The shared copy handler has decided already (existing policy, the version seen): write over what is there.
        if seen != nil, details.mode == nil { details.mode = .overwrite }
        var upload = OneDriveUpload(
            handler: uploads, job: job, context: context, caller: OneDriveCaller(account: location.account, tokens: uploads.tokens, logger: context.logger),
            source: .copy(source), size: facts.size, quickXor: Self.quickXor(of: facts), path: path,
            modified: facts.modified.map(OneDriveTime.format), details: details)
        upload.sourceVersion = facts.version
        let result = try await upload.run()
        var merged = result.details?.objectValue ?? [:]
        merged.merge(facts.resultDetails) { ours, _ in ours }
        return JobResult(bytes: result.bytes, details: .object(merged))
    }

    /// The source's QuickXorHash, when it states one (another OneDrive, or a copy that kept it).
    static func quickXor(of facts: CopySourceFacts) -> String? {
        guard let digest = facts.digest, digest.kind == .oneDriveQuickXor else { return nil }
        return digest.value
    }
}
