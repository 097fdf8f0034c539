import AsyncHTTPClient
import FerryCore
import FerryProviders
import FerryStore
import Foundation
import NIOCore

/// Fetches an `http(s)://` URL to a local file: `ferry enqueue fetch URL --to PATH`.
///
/// The body streams into a `PartialDownload` beside the target (memory stays bounded). Large downloads
/// checkpoint — fsync, then a progress event carrying a `FetchCursor` — every `checkpointBytes` and at least
/// every couple of seconds, so a new attempt (after a crash, on another machine) resumes with `Range` and
/// `If-Range` where the last one stopped; a remote file that changed meanwhile is fetched again from zero.
/// Files smaller than `checkpointBytes` record no progress at all (many small photos stay cheap).
/// The length and optional SHA-256 are verified before the file is renamed into place.
public struct HTTPFetchHandler: JobHandler {
    let httpClient: HTTPClient
    /// Bytes between checkpoints; files smaller than this are never checkpointed.
    public let checkpointBytes: Int64
    /// A slow download still checkpoints this often once it has at least `idleCheckpointBytes` new.
    let checkpointInterval: Duration = .seconds(2)
    let idleCheckpointBytes: Int64 = 256 * 1024
    let maxRedirects = 5
    /// Bound of one request; a stalled one ends sooner through the client's read timeout.
    let requestTimeout: TimeAmount = .hours(12)

    public init(httpClient: HTTPClient, checkpointBytes: Int64 = 8 * 1024 * 1024) {
        self.httpClient = httpClient
        self.checkpointBytes = max(1024 * 1024, checkpointBytes)
    }

    public var name: String { "http-fetch" }


    public func run(_ job: ClaimedJob, context: JobContext) async throws -> JobResult {
        let details = try job.details(as: WebFetchDetails.self)
        // Jobs enqueued before fetch details existed have no root: their own folder is the confinement.
        return try await download(
            job, url: job.source, root: details.root ?? SafePath.directory(of: job.destination), sha256: details.sha256,
            context: context)
    }

    /// Fetches `url` to the job's destination inside `root` (a Flickr photo child builds its URL when it runs).
    func download(_ job: ClaimedJob, url: String, root: String, sha256: String?, context: JobContext) async throws -> JobResult {
        if let skipped = try await ExistingTarget.skipIfPresent(job.destination, job: job, context: context) { return skipped }
        // Without a validator a resumed range could splice two versions of the file: start over instead.
        let recorded = FetchCursor(session: job.session).flatMap { $0.validator == nil ? nil : $0 }
        // SHA-256 only when asked for: on CPUs without SHA extensions it costs more than the download itself.
        let expectedSHA256 = sha256
        let partial = try await PartialDownload.open(
            target: job.destination, root: root, jobID: job.jobID, resumeAt: recorded?.offset,
            digests: expectedSHA256 == nil ? [] : [.sha256], context: context)
        let attempt = Attempt(handler: self, context: context, partial: partial, url: url, shown: DisplayURL.of(url))
        return try await httpClient.onEventLoop {
            try await attempt.run(recorded: recorded, expectedSHA256: expectedSHA256)
        }
    }
}
