import FerryCore
import FerryDropbox
import FerryProviders
import FerryStore
import Foundation
import Logging

/// Writes copies to Dropbox with the upload's protocol (``DropboxUploadHandler``): a file up to one chunk in one
/// `upload_session/start` with `close: true` committed in the account's next `finish_batch_v2`, a larger one in
/// an upload session resumed at its recorded offset (only for the same source version), each chunk read from the
/// source as it goes up. The stored file gets the source's modification time as `client_modified`, and its
/// `content_hash` must be that of the bytes read (and, from a Dropbox source, the source's).
struct DropboxCopyWriter: CopyWriter {
    /// Chunk size, commit batching and contention handling, shared with uploads.
    let uploads: DropboxUploadHandler

    var provider: String { "dropbox" }

    func accepts(fileDestination destination: String) -> Bool {
        (try? DropboxLocation(destination, field: "to", line: nil)).map { !$0.path.hasSuffix("/") } == true
    }

    func destinationIndex(folder: String, account: String, logger: Logger) async throws -> (any CopyDestinationIndex)? {
        guard let location = try? DropboxLocation(job: folder) else { return nil }
        return DropboxDestinationListing(caller: DropboxCaller(account: location.account, tokens: uploads.tokens, logger: logger), folder: location.path)
    }

    func participating(account: String, _ body: () async throws -> JobResult) async throws -> JobResult {
        guard let batcher = uploads.commitBatcher else { return try await body() }
        return try await batcher.participating(account) { try await body() }
    }

    func look(_ job: ClaimedJob, source: any CopySource, context: JobContext) async throws -> CopyDestinationLook {
        let location = try DropboxLocation(job: job.destination)
        let caller = DropboxCaller(account: location.account, tokens: uploads.tokens, logger: context.logger)
        let entry: DropboxEntry
        do {
            entry = try await caller.call("checking the destination") { client, token in
                try await client.getMetadata(path: location.path, accessToken: token)
            }
        } catch let error as DropboxError {
            let failure = error.jobFailure(doing: "checking the destination")
            if failure.code == "not_found" { return .absent }
            throw failure
        }
        // A folder at the path is no file to replace: the commit meets it as the conflict it is.
        guard case .file(let metadata) = entry else { return .absent }
        let found: [String: JSONValue] = [
            "path": .string(metadata.pathDisplay), "rev": .string(metadata.rev), "size": .int(metadata.size),
            "content_hash": .string(metadata.contentHash ?? ""),
        ]
        let facts = source.facts
        // The same content (a Dropbox source's hash), or the same size and modification time (rclone's check).
        let same: Bool
        if metadata.size != facts.size {
            same = false
        } else if let digest = facts.digest, digest.kind == .dropbox {
            same = metadata.contentHash == digest.value
        } else if let seconds = facts.modifiedSeconds, let stored = RemoteTimestamp.iso8601(metadata.clientModified) {
            same = Int64(stored.timeIntervalSince1970.rounded(.down)) == seconds
        } else {
            same = false
        }
        return same ? .same(found) : .different(version: metadata.rev, details: found)
    }

    func write(_ job: ClaimedJob, source: any CopySource, seen: String?, context: JobContext) async throws -> JobResult {
        let facts = source.facts
        let result = try await uploads.transfer(
            job, context: context, source: .copy(source), size: facts.size,
            modified: facts.modified ?? Date(), seen: seen, expectedContentHash: facts.digest.flatMap { $0.kind == .dropbox ? $0.value : nil }, checkSource: {})
        var details = result.details?.objectValue ?? [:]
        details.merge(facts.resultDetails) { ours, _ in ours }
        return JobResult(bytes: result.bytes, details: .object(details))
    }
}
