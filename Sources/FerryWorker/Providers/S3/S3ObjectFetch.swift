import AsyncHTTPClient
import FerryCore
import FerryProviders
import FerryS3
import FerryStore
import Foundation
import NIOCore

/// One attempt at fetching one S3 object into a local path.
///
/// The bytes stream into a ``PartialDownload`` beside the target. Every 8 MiB or ~2 s the written bytes are
/// synced and recorded as progress with the object's ETag, so a new attempt resumes with `Range` and
/// `If-Match` where the last one stopped; an object that changed in between (412) is fetched again from zero.
/// The finished file must have the announced length and, for a plain (single-part) ETag, its MD5.
struct S3ObjectFetch: Sendable {
    let job: ClaimedJob
    let context: JobContext
    let client: S3Client
    let details: S3FetchDetails
    let bucket: String
    let key: String
    let target: String


    func run() async throws -> JobResult {
        if let skipped = try await ExistingTarget.skipIfPresent(target, job: job, context: context) { return skipped }
        if let unchanged = try await alreadyPresent() { return unchanged }
        var digests: Set<PartialDownload.Digest> = [.md5]
        if details.sha256 != nil { digests.insert(.sha256) }
        let recorded = S3DownloadCursor(session: job.session)
        let partial = try await PartialDownload.open(
            target: target, root: details.root, jobID: job.jobID, resumeAt: recorded?.offset, digests: digests, context: context)
        let (download, etag, total) = try await start(partial, recorded: recorded)
        try await partial.receive(download.body, context: context, total: total, what: key) { S3DownloadCursor(offset: $0, etag: etag).json }
        let plainMD5 = Self.plainMD5(etag)
        let finished = try await partial.finish(
            expectedLength: total, expectedSHA256: details.sha256, expectedContentHash: nil, expectedMD5: plainMD5,
            modified: RemoteTimestamp.http(download.lastModified))
        var result: [String: JSONValue] = ["bytes": .int(finished.bytes), "etag": .string(etag)]
        if let listed = details.listedETag, S3MultipartETag.unquoted(listed) != S3MultipartETag.unquoted(etag) {
            // Newer bytes are what the user wants; the result says the listing was stale.
            context.logger.notice("object changed since it was listed; fetched the current version")
            result["changed_since_listing"] = .bool(true)
            result["listed_etag"] = .string(listed)
        }
        return JobResult(bytes: finished.bytes, details: .object(result))
    }

    /// An object a prefix listing saw that is already at the target is not downloaded again, so a prefix fetched
    /// again brings only new or changed objects: same size and MD5 for a plain ETag; for a multipart ETag (no MD5
    /// of the whole), same size and modification time, which a fetch gives the file from `Last-Modified`.
    private func alreadyPresent() async throws -> JobResult? {
        guard details.entry == true, let etag = details.listedETag, let size = details.listedSize, details.sha256 == nil else {
            return nil
        }
        let target = self.target
        let same: Bool
        if let md5 = Self.plainMD5(etag) {
            same = try await BlockingIO.run { LocalContentHash.md5(of: target, size: size) } == md5
        } else if let listed = RemoteTimestamp.iso8601(details.listedModified) {
            same = try await BlockingIO.run { LocalContentHash.modified(of: target, size: size) } == Int64(listed.timeIntervalSince1970)
        } else {
            same = false
        }
        guard same else { return nil }
        context.logger.info("already present with the same size and content; not downloaded again")
        return .unchanged(["size": .int(size), "etag": .string(etag)])
    }

    /// Asks for the bytes from the durable offset, of the same version (`If-Match`). A changed object (412), an
    /// offset past the end (416) or an ignored range starts over from zero.
    private func start(_ partial: PartialDownload, recorded: S3DownloadCursor?) async throws -> (S3Download, String, Int64) {
        var resume = partial.offset > 0 ? recorded : nil
        while true {
            let download: S3Download
            do {
                download = try await client.getObject(
                    bucket: bucket, key: key, range: resume.map { _ in S3ByteRange.from(partial.offset) },
                    ifMatch: resume?.etag)
            } catch {
                if resume != nil && (error.code == .preconditionFailed || error.code == .invalidRange) {
                    context.logger.notice("the object changed since the last attempt; starting over", metadata: ["offset": "\(partial.offset)"])
                    try await partial.restart()
                    resume = nil
                    continue
                }
                throw error.jobFailure(doing: "downloading \(key)")
            }
            guard let etag = download.etag else {
                throw JobFailure.retryable("s3_bad_response", "the download of \(key) carried no ETag")
            }
            if resume != nil {
                if download.status == 206, let range = download.contentRange, range.first == partial.offset, let total = range.completeLength {
                    context.logger.info("resuming download", metadata: ["offset": "\(partial.offset)"])
                    return (download, etag, total)
                }
                context.logger.notice("the store did not resume at the recorded offset; starting over", metadata: ["offset": "\(partial.offset)"])
                try await partial.restart()
                if download.status == 200, let length = download.contentLength {
                    // The whole object is on its way: keep it rather than asking again.
                    return (download, etag, length)
                }
                resume = nil
                continue
            }
            guard let length = download.contentLength else {
                throw JobFailure.retryable("s3_bad_response", "the download of \(key) carried no Content-Length")
            }
            return (download, etag, length)
        }
    }

    /// The MD5 in a plain ETag (32 hex digits); multipart and encrypted objects have other forms.
    static func plainMD5(_ etag: String) -> String? {
        let unquoted = S3MultipartETag.unquoted(etag).lowercased()
        guard unquoted.utf8.count == 32, unquoted.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else { return nil }
        return unquoted
    }
}
