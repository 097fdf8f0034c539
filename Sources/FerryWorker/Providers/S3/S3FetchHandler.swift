import FerryCore
import FerryProviders
import FerryS3
import FerryStore
import Foundation

/// Fetches from an S3-compatible store: `ferry enqueue fetch s3:ACCOUNT:bucket/key --to LOCAL`.
///
/// One object is downloaded resumably (``S3ObjectFetch``). A prefix (a key ending in `/`) is listed with
/// `ListObjectsV2` page by page, each page's objects becoming child fetch jobs in the same batch
/// (``S3PrefixFanOut``); children are always single objects and are never listed again.
struct S3FetchHandler: JobHandler {
    let access: S3AccountAccess

    var name: String { "s3-fetch" }

    func run(_ job: ClaimedJob, context: JobContext) async throws -> JobResult {
        let location = try S3Location(job: job.source)
        let details = try job.details(as: S3FetchDetails.self)
        guard details.root.hasPrefix("/") else {
            throw JobFailure.permanent("bad_details", "the fetch job has no local root folder")
        }
        let client = try await access.client(for: location.account, logger: context.logger)
        if details.entry == true || !location.isPrefix {
            let fetch = S3ObjectFetch(
                job: job, context: context, client: client, details: details, bucket: location.bucket, key: location.key,
                target: job.destination)
            return try await access.httpClient.onEventLoop { try await fetch.run() }
        }
        return try await S3PrefixFanOut(
            job: job, context: context, client: client, details: details, location: location,
            root: job.destination.hasSuffix("/") ? job.destination : job.destination + "/"
        ).run()
    }
}
