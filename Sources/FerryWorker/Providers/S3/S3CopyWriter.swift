import FerryCore
import FerryProviders
import FerryS3
import FerryStore
import Foundation
import Logging

/// Writes copies to S3: the same single `PutObject` or resumable multipart upload as a file upload
/// (``S3Upload``), with each part read from the source as it goes up. A resumed copy keeps the parts the store
/// holds only when they are of the same source version (recorded with the upload's state); a changed source
/// aborts the old upload and starts over. The object carries the source's modification time
/// (`x-amz-meta-mtime`, rclone's form) and version (`x-amz-meta-source-version`, and the source provider's own
/// content digest under the digest's name), which tell a later copy that it holds that version already.
struct S3CopyWriter: CopyWriter {
    /// The part size, the process's part slots and the multipart settings, shared with uploads.
    let uploads: S3UploadHandler

    var provider: String { "s3" }

    func accepts(fileDestination destination: String) -> Bool {
        (try? S3Location(destination, field: "to", line: nil)).map { !$0.isPrefix } == true
    }

    func destinationIndex(folder: String, account: String, logger: Logger) async throws -> (any CopyDestinationIndex)? {
        guard let location = try? S3Location(job: folder) else { return nil }
        let client = try await uploads.access.client(for: account, logger: logger)
        return S3DestinationListing(client: client, bucket: location.bucket, prefix: location.key)
    }

    func look(_ job: ClaimedJob, source: any CopySource, context: JobContext) async throws -> CopyDestinationLook {
        let location = try S3Location(job: job.destination)
        let client = try await uploads.access.client(for: location.account, logger: context.logger)
        let facts = source.facts
        guard let info = try await S3UploadHandler.head(location, client: client) else { return .absent }
        let found: [String: JSONValue] = ["size": .int(info.contentLength), "etag": .string(info.etag), "key": .string(location.key)]
        let same =
            info.contentLength == facts.size
            && (info.metadata["source-version"] == Self.versionText(facts.version)
                || (facts.md5 != nil && S3ObjectFetch.plainMD5(info.etag) == facts.md5)
                || (facts.digest.map { info.metadata[$0.kind.name] == $0.value } ?? false))
        // A PUT replaces the object whole: the version seen needs no pinning.
        return same ? .same(found) : .different(version: info.etag, details: found)
    }

    func write(_ job: ClaimedJob, source: any CopySource, seen: String?, context: JobContext) async throws -> JobResult {
        let location = try S3Location(job: job.destination)
        let options = try job.details(as: S3UploadDetails.self)
        let client = try await uploads.access.client(for: location.account, logger: context.logger)
        let facts = source.facts
        var metadata = ["source-version": Self.versionText(facts.version)]
        if let modified = facts.modified {
            metadata["mtime"] = S3UploadHandler.mtimeText(Self.nanoseconds(modified))
        }
        if let digest = facts.digest { metadata[digest.kind.name] = digest.value }
        if let serverSide = source as? S3CopySource, Self.copiesInside(source: serverSide, to: location, size: facts.size),
            S3UploadCursor(session: job.session, key: location.key) == nil
        {
            return try await copyInside(serverSide, to: location, client: client, options: options, metadata: metadata)
        }
        let upload = S3Upload(
            handler: uploads, job: job, context: context, client: client, source: .copy(source), size: facts.size,
            bucket: location.bucket, key: location.key, options: options, metadata: metadata)
        var recorded = S3UploadCursor(session: job.session, key: location.key)
        if let stale = recorded, stale.sourceVersion != facts.version {
            // Parts of another version of the source must not be completed into this one.
            context.logger.notice("the source changed since the last attempt; starting the copy over")
            try? await client.abortMultipartUpload(bucket: location.bucket, key: location.key, uploadID: stale.uploadID)
            recorded = nil
        }
        let plan = try S3UploadHandler.plan(size: facts.size, preferred: recorded?.partSize ?? uploads.partSize)
        let etag = plan.isSinglePut ? try await upload.single() : try await upload.multipart(plan: plan, recorded: recorded) {}
        var details = facts.resultDetails
        details.merge(["etag": .string(etag), "bucket": .string(location.bucket), "key": .string(location.key)]) { _, ours in ours }
        return JobResult(bytes: facts.size, details: .object(details))
    }

    /// A time as whole nanoseconds since 1970, rounded to the microsecond: a `Date` holds about a quarter of a
    /// microsecond at today's dates, and multiplying its seconds by 10⁹ in floating point would write
    /// 1700000000.249999872 for 1700000000.25.
    static func nanoseconds(_ date: Date) -> Int64 {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        let micros = Int64(((date.timeIntervalSince1970 - seconds) * 1_000_000).rounded())
        return Int64(seconds) * 1_000_000_000 + micros * 1_000
    }

    /// Whether the store copies this object itself: source and destination are of one account (one endpoint, one
    /// key pair that reads the one and writes the other), and one `CopyObject` takes the size.
    static func copiesInside(source: S3CopySource, to destination: S3Location, size: Int64) -> Bool {
        source.location.account == destination.account && size <= S3Client.maxCopyObjectSize
    }

    /// A copy the store makes itself (`CopyObject`, pinned to the version the attempt began with): no byte passes
    /// through the worker. A plain source ETag (the MD5 of the bytes) must come back as the copy's. A listed
    /// source's copy keeps the source's metadata (one request per object, as rclone within one remote).
    func copyInside(
        _ source: S3CopySource, to location: S3Location, client: S3Client, options: S3UploadDetails, metadata: [String: String]
    ) async throws -> JobResult {
        let facts = source.facts
        let etag: String
        do {
            // A source known only from its listing keeps its own metadata (its stored mtime among it); a looked-up
            // one gets ours, as a streamed copy does.
            etag = try await client.copyObject(
                sourceBucket: source.location.bucket, sourceKey: source.location.key, ifMatch: facts.version,
                bucket: location.bucket, key: location.key, metadata: source.listedOnly ? nil : metadata,
                contentType: options.contentType, storageClass: options.storageClass)
        } catch {
            if error.code == .preconditionFailed || error.code == .noSuchKey {
                throw JobFailure.retryable("source_changed", "\(source.location.text) changed or went away during the copy; the next attempt copies its current version")
            }
            throw error.jobFailure(doing: "copying \(source.location.text) inside the store")
        }
        if let md5 = facts.md5, S3ObjectFetch.plainMD5(etag) != md5 {
            throw JobFailure.retryable("checksum_mismatch", "the store's copy of \(source.location.text) has ETag \(etag), not the source's MD5 \(md5)")
        }
        var details = facts.resultDetails
        details.merge(["etag": .string(etag), "bucket": .string(location.bucket), "key": .string(location.key), "server_side": .bool(true)]) { _, ours in ours }
        return JobResult(bytes: facts.size, details: .object(details))
    }

    /// A version as a header value carries it: ETags lose their quotes.
    static func versionText(_ version: String) -> String {
        S3MultipartETag.unquoted(version)
    }
}
