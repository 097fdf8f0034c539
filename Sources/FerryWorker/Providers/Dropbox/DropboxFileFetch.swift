import AsyncHTTPClient
import FerryCore
import FerryDropbox
import FerryProviders
import FerryStore
import Foundation
import NIOCore

/// One attempt at fetching one Dropbox file (or its thumbnail) into a local path.
///
/// The bytes go through `/2/files/download` into a ``PartialDownload`` beside the target. Every 8 MiB or ~2 s
/// the written bytes are synced and recorded as progress with the file's `rev`, so a new attempt resumes with
/// `Range` where the last one stopped, unless the file changed in between (another `rev`): then it starts over.
/// The finished file must have the length and `content_hash` the download's metadata announced.
struct DropboxFileFetch: Sendable {
    let job: ClaimedJob
    let context: JobContext
    let caller: DropboxCaller
    let details: DropboxFetchDetails
    /// Remote path (`/a/b.jpg`).
    let path: String
    /// Local path to write.
    let target: String

    /// Bytes between durable checkpoints.

    func run() async throws -> JobResult {
        if let skipped = try await ExistingTarget.skipIfPresent(target, job: job, context: context) { return skipped }
        if let thumbnail = details.thumbnail { return try await fetchThumbnail(size: thumbnail) }
        return try await caller.tokens.httpClient.onEventLoop { try await fetchFile() }
    }

    private func fetchFile() async throws -> JobResult {
        if let unchanged = try await alreadyPresent() { return unchanged }
        var digests: Set<PartialDownload.Digest> = [.provider(.dropbox)]
        if details.sha256 != nil { digests.insert(.sha256) }
        let recorded = DropboxDownloadCursor(session: job.session)
        let partial = try await PartialDownload.open(
            target: target, root: details.root, jobID: job.jobID, resumeAt: recorded?.offset, digests: digests, context: context)
        do {
            let (download, metadata) = try await start(partial, recorded: recorded)
            try await partial.receive(download.body, context: context, total: metadata.size, what: path, passes: { $0 is DropboxError }) { offset in
                DropboxDownloadCursor(offset: offset, rev: metadata.rev, contentHash: metadata.contentHash).json
            }
            let finished = try await partial.finish(
                expectedLength: metadata.size, expectedSHA256: details.sha256, expectedContentHash: metadata.contentHash,
                modified: RemoteTimestamp.iso8601(metadata.clientModified))
            var result: [String: JSONValue] = [
                "bytes": .int(finished.bytes), "rev": .string(metadata.rev),
                "content_hash": finished.contentHash.map(JSONValue.string) ?? .null,
            ]
            if changedSinceListing(metadata) {
                // Newer bytes are what the user wants; the result says the listing was stale.
                context.logger.notice("file changed since it was listed; fetched the current version")
                result["changed_since_listing"] = .bool(true)
                result["listed_rev"] = details.listedRev.map(JSONValue.string) ?? .null
                result["listed_content_hash"] = details.listedContentHash.map(JSONValue.string) ?? .null
            }
            return JobResult(bytes: finished.bytes, details: .object(result))
        } catch let error as DropboxError {
            throw error.jobFailure(doing: "downloading \(path)")
        }
    }

    /// A file a folder listing saw (size and `content_hash`) that is already at the target with the same size and
    /// content hash is not downloaded again: a folder fetched again brings only new or changed files. Checked here,
    /// in the child, so the hashing of local files is spread over the workers like the downloads it replaces.
    private func alreadyPresent() async throws -> JobResult? {
        guard let hash = details.listedContentHash, let size = details.listedSize, details.sha256 == nil else { return nil }
        let target = self.target
        guard let local = try? await BlockingIO.run({ LocalContentHash.digest(.dropbox, of: target, size: size) }), local == hash else {
            return nil
        }
        context.logger.info("already present with the same size and content hash; not downloaded again")
        return .unchanged(["size": .int(size), "content_hash": .string(hash)])
    }

    /// Asks for the bytes from the recorded offset. A changed `rev`, an ignored range or an offset past the end
    /// restarts from zero.
    private func start(_ partial: PartialDownload, recorded: DropboxDownloadCursor?) async throws -> (DropboxDownload, DropboxFileMetadata) {
        var rangeStart: Int64? = partial.offset > 0 ? partial.offset : nil
        while true {
            let download: DropboxDownload
            do {
                download = try await caller.call("downloading \(path)") { [path, rangeStart] client, token in
                    try await client.download(path: path, rangeStart: rangeStart, accessToken: token)
                }
            } catch let error as DropboxError where error.httpStatus == 416 && rangeStart != nil {
                context.logger.notice("recorded offset is past the end of the file; starting over")
                try await partial.restart()
                rangeStart = nil
                continue
            }
            guard let metadata = download.metadata else {
                throw JobFailure.retryable("dropbox_bad_response", "the download of \(path) carried no file metadata")
            }
            guard let start = rangeStart else { return (download, metadata) }
            if let recorded, recorded.rev != metadata.rev {
                context.logger.notice("file changed since the last attempt; starting over", metadata: ["offset": "\(start)"])
            } else if download.status != 206 || download.contentRangeStart != start {
                context.logger.notice("server did not resume at the recorded offset; starting over", metadata: ["offset": "\(start)"])
                if download.status == 200 {
                    // The whole file is on its way: keep it rather than asking again.
                    try await partial.restart()
                    return (download, metadata)
                }
            } else {
                context.logger.info("resuming download", metadata: ["offset": "\(start)"])
                return (download, metadata)
            }
            // Dropping the body releases the connection; the next request starts at zero.
            try await partial.restart()
            rangeStart = nil
        }
    }

    private func changedSinceListing(_ metadata: DropboxFileMetadata) -> Bool {
        guard details.isEntry else { return false }
        if let rev = details.listedRev, rev != metadata.rev { return true }
        if let hash = details.listedContentHash, let now = metadata.contentHash, hash != now { return true }
        if let size = details.listedSize, size != metadata.size { return true }
        return false
    }

    /// `get_thumbnail_v2` (JPEG, `bestfit` like Dropbox's own apps). Thumbnails are small and generated, so
    /// they are fetched whole each attempt and have no checksum to verify beyond their length.
    private func fetchThumbnail(size: String) async throws -> JobResult {
        let partial = try await PartialDownload.open(
            target: target, root: details.root, jobID: job.jobID, resumeAt: nil, digests: [], context: context)
        do {
            let download = try await caller.call("fetching a thumbnail of \(path)") { [path] client, token in
                try await client.getThumbnail(path: path, size: size, format: "jpeg", mode: "bestfit", accessToken: token)
            }
            try await partial.restart()
            try await partial.receive(download.body, context: context, total: nil, what: path, passes: { $0 is DropboxError }) { _ in nil }
            let finished = try await partial.finish(expectedLength: download.contentLength, expectedSHA256: nil, expectedContentHash: nil)
            var result: [String: JSONValue] = ["bytes": .int(finished.bytes), "thumbnail": .string(size)]
            if let metadata = download.metadata {
                result["rev"] = .string(metadata.rev)
                if let hash = metadata.contentHash { result["content_hash"] = .string(hash) }
            }
            return JobResult(bytes: finished.bytes, details: .object(result))
        } catch let error as DropboxError {
            throw error.jobFailure(doing: "fetching a thumbnail of \(path)")
        }
    }
}
