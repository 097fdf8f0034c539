import FerryCore
import FerryGoogleDrive
import FerryProviders
import FerryStore
import Foundation

/// Uploads a local file to Google Drive: `--to gdrive:ACCOUNT:/path`.
///
/// The folders on the way are found or created once (see ``GoogleDrivePathResolver``). A file of the same name
/// already in the folder decides what happens (Drive would happily add a second one): the same MD5 is done
/// (`unchanged`); other content fails the job in mode `add`, or becomes a new revision of that file (same id) in mode
/// `overwrite`. Files up to ``multipartLimit`` go up in one multipart request; larger ones in a resumable session whose
/// URI and offset are recorded as progress after every chunk, so another worker resumes the same session after a
/// crash (asking the session where it stands first) and starts a new one only when it expired. The stored `md5Checksum`
/// and size must match the local file; `modifiedTime` is the file's.
public struct GoogleDriveUploadHandler: JobHandler {
    let tokens: AccountTokenProvider
    let environment: ProviderEnvironment
    let folders: GoogleDriveFolderCache
    /// Bytes per resumable chunk: a multiple of 256 KiB.
    public let chunkSize: Int
    /// Files up to this size go up in one multipart request.
    public let multipartLimit: Int64
    let pieceSize = 256 * 1024

    public init(tokens: AccountTokenProvider, environment: ProviderEnvironment, chunkSize: Int = 8 * 1024 * 1024, multipartLimit: Int64 = 5 * 1024 * 1024) {
        self.init(tokens: tokens, environment: environment, folders: GoogleDriveFolderCache(), chunkSize: chunkSize, multipartLimit: multipartLimit)
    }

    init(tokens: AccountTokenProvider, environment: ProviderEnvironment, folders: GoogleDriveFolderCache, chunkSize: Int, multipartLimit: Int64) {
        self.tokens = tokens
        self.environment = environment
        self.folders = folders
        let granularity = GoogleDriveClient.chunkGranularity
        self.chunkSize = min(256 * 1024 * 1024, max(granularity, chunkSize / granularity * granularity))
        self.multipartLimit = max(0, multipartLimit)
    }

    public var name: String { "gdrive-upload" }

    public func run(_ job: ClaimedJob, context: JobContext) async throws -> JobResult {
        let location = try GoogleDriveLocation(job: job.destination)
        guard let path = location.path, let name = GoogleDriveLocation.components(of: path).last, !path.hasSuffix("/") else {
            throw JobFailure.permanent("bad_location", "an upload names a file path: gdrive:ACCOUNT:/folder/name")
        }
        let details = try job.details(as: GoogleDriveUploadDetails.self)
        let roots = context.localRoots
        // Off the cooperative pool: opening walks the path a component at a time.
        let (expected, source) = try await BlockingIO.run { try SourceExpectation.open(job, roots: roots) }
        let size = expected.size
        guard let md5 = try await BlockingIO.run({ try LocalContentHash.md5(of: source, size: size) }) else {
            throw JobFailure.permanent("source_changed", "\(job.source) became shorter since it was enqueued; enqueue it again")
        }
        let caller = GoogleDriveCaller(account: location.account, tokens: tokens, logger: context.logger)
        let upload = GoogleDriveUpload(
            handler: self, job: job, context: context, caller: caller, source: .file(source), size: size, md5: md5,
            metadata: GoogleDriveNewFile(name: name, modifiedTime: GoogleDriveTime.format(nanoseconds: expected.modifiedNanoseconds)),
            details: details,
            resolver: GoogleDrivePathResolver(caller: caller, environment: environment, cache: folders, account: location.account),
            folder: Array(GoogleDriveLocation.components(of: path).dropLast()))
        let result = try await upload.run()
        try expected.check(try source.status(), path: job.source, when: "during the upload")
        return result
    }
}
