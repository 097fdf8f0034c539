import FerryCore
import FerryOneDrive
import FerryProviders
import FerryStore
import Foundation

/// Uploads a local file to OneDrive: `--to onedrive:ACCOUNT:/path`.
///
/// Graph addresses items by path and makes the folders on the way itself. What is at the path decides first (the
/// same size and QuickXorHash is done: `unchanged`); the job's mode and `existing` policy become Graph's
/// `conflictBehavior` (add → fail, overwrite → replace, rename → rename). Files up to ``simpleLimit`` go up in one
/// `PUT …:/content`; larger ones through an upload session whose URL and next expected offset are recorded as
/// progress after every range, so another worker resumes the same session after a crash (asking it for
/// `nextExpectedRanges` first) and starts a new one only when it expired. The stored `quickXorHash` and size must
/// match the local file.
public struct OneDriveUploadHandler: JobHandler {
    let tokens: AccountTokenProvider
    let environment: ProviderEnvironment
    /// Bytes per session range: a multiple of 320 KiB, at most 60 MiB.
    public let rangeSize: Int
    /// Files up to this size go up in one simple upload (at most 4 MiB).
    public let simpleLimit: Int64
    let pieceSize = 256 * 1024

    public init(tokens: AccountTokenProvider, environment: ProviderEnvironment, rangeSize: Int = 10 * 320 * 1024, simpleLimit: Int64 = OneDriveClient.simpleUploadLimit) {
        self.tokens = tokens
        self.environment = environment
        let granularity = OneDriveClient.rangeGranularity
        self.rangeSize = min(OneDriveClient.maxRange / granularity * granularity, max(granularity, rangeSize / granularity * granularity))
        self.simpleLimit = min(OneDriveClient.simpleUploadLimit, max(0, simpleLimit))
    }

    public var name: String { "onedrive-upload" }

    public func run(_ job: ClaimedJob, context: JobContext) async throws -> JobResult {
        let location = try OneDriveLocation(job: job.destination)
        guard let path = location.path, !path.hasSuffix("/"), !OneDriveLocation.components(of: path).isEmpty else {
            throw JobFailure.permanent("bad_location", "an upload names a file path: onedrive:ACCOUNT:/folder/name")
        }
        let details = try job.details(as: OneDriveUploadDetails.self)
        let roots = context.localRoots
        let (expected, source) = try await BlockingIO.run { try SourceExpectation.open(job, roots: roots) }
        let size = expected.size
        guard let hash = try await BlockingIO.run({ try OneDriveLocalHash.quickXor(of: source, size: size) }) else {
            throw JobFailure.permanent("source_changed", "\(job.source) became shorter since it was enqueued; enqueue it again")
        }
        let upload = OneDriveUpload(
            handler: self, job: job, context: context, caller: OneDriveCaller(account: location.account, tokens: tokens, logger: context.logger),
            source: .file(source), size: size, quickXor: hash, path: path,
            modified: OneDriveTime.format(nanoseconds: expected.modifiedNanoseconds), details: details)
        let result = try await upload.run()
        try expected.check(try source.status(), path: job.source, when: "during the upload")
        return result
    }
}
