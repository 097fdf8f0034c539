import AsyncHTTPClient
import FerryCore
import FerryProviders
import FerryS3
import FerryStore
import Logging

/// S3 as a copy source: objects read pinned to their ETag, prefixes listed into child copies.
struct S3CopyReader: CopySourceReader {
    let access: S3AccountAccess

    func account(of source: String) throws -> String {
        try S3Location(job: source).account
    }

    /// An object's modification time as the uploader kept it (`x-amz-meta-mtime`) is in no listing: a small one
    /// whose bytes will be needed (`writing`) is read whole at once (the metadata comes with the bytes); one the
    /// store copies itself (one account on both sides) is taken as listed; any other is looked up first.
    func open(_ job: ClaimedJob, from: CopySourceDetails, writing: Bool, logger: Logger) async throws -> any CopySource {
        let location = try S3Location(job: job.source)
        // When the store copies it itself (one account on both sides) no byte is read here, and a listed object
        // needs no look either: the store keeps its metadata, and the copy is pinned to the listed ETag.
        let inside = job.account == location.account && EndpointSyntax.scheme(of: job.destination) == EndpointSyntax.scheme(of: job.source)
        if inside, job.attempt <= 1, let etag = from.version, let size = from.size, size <= S3Client.maxCopyObjectSize {
            let client = try await access.client(for: location.account, logger: logger)
            return S3CopySource(
                client: client, location: location,
                facts: CopySourceFacts(
                    size: size, version: etag, modified: RemoteTimestamp.iso8601(from.modified), md5: S3ObjectFetch.plainMD5(etag)),
                listedOnly: true)
        }
        if job.attempt <= 1, writing, !inside, let etag = from.version, let size = from.size, size <= S3CopySource.prefetchLimit {
            return try await S3CopySource.read(listed: location, etag: etag, access: access, logger: logger)
        }
        return try await S3CopySource.open(location, access: access, logger: logger)
    }

    func fanOut(_ job: ClaimedJob, target: CopyTarget, context: JobContext) async throws -> JobResult {
        let location = try S3Location(job: job.source)
        let client = try await access.client(for: location.account, logger: context.logger)
        var listing = S3PrefixFanOut(
            job: job, context: context, client: client, details: S3FetchDetails(root: "/", recursive: true), location: location, root: "/")
        listing.copy = target
        return try await listing.run()
    }
}
