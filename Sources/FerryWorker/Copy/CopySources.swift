import AsyncHTTPClient
import FerryCore
import FerryProviders
import FerryS3
import FerryStore
import Logging

/// The read side of copies, whatever provider they write to: opens a copy's source file (a Dropbox file, an S3
/// object) and lists a folder copy's source (a Dropbox folder, an S3 prefix) into child copies. Sources are read
/// with their own account, the one the job's `from` details name, checked again here against the source's text.
struct CopySources: Sendable {
    let tokens: AccountTokenProvider
    let httpClient: HTTPClient

    /// The copy's source details, checked against its source text (a raw event could pair them otherwise).
    static func details(of job: ClaimedJob) throws -> CopySourceDetails {
        guard let value = (try? JSONValue.parse(job.spec))?[CopySourceDetails.specKey],
            let from = try? JSONValue.decode(CopySourceDetails.self, from: value.jsonText)
        else {
            throw JobFailure.permanent("bad_details", "the copy job does not say how to read its source")
        }
        guard EndpointSyntax.scheme(of: job.source) == from.provider else {
            throw JobFailure.permanent("bad_details", "the copy's source is not a \(from.provider) location")
        }
        let account: String
        switch from.provider {
        case "dropbox": account = try DropboxLocation(job: job.source).account
        case "s3": account = try S3Location(job: job.source).account
        default: throw JobFailure.permanent("bad_details", "the copy's source provider \(from.provider) cannot be read")
        }
        guard account == from.account else {
            throw JobFailure.permanent("bad_details", "the copy's source account does not match its source")
        }
        return from
    }

    /// The source at its current version. A Dropbox file a folder listing found is taken as listed on its first
    /// attempt (one request less per file; reads are pinned to the listed revision, so a file changed since fails
    /// the attempt as `source_changed`); later attempts look it up afresh. An S3 object's modification time as the
    /// uploader kept it (`x-amz-meta-mtime`) is in no listing: a small one headed for a place the destination
    /// lacks, or for a copy that replaces whatever is there (`writing`), is read whole at once (the metadata comes
    /// with the bytes); one the store copies itself (one account on both sides) is taken as listed; any other is
    /// looked up first.
    func open(_ job: ClaimedJob, from: CopySourceDetails, writing: Bool, logger: Logger) async throws -> any CopySource {
        let listed = job.attempt <= 1 && from.provider == "dropbox" ? from.listedFacts : nil
        switch from.provider {
        case "dropbox":
            let location = try DropboxLocation(job: job.source)
            let caller = DropboxCaller(account: location.account, tokens: tokens, logger: logger)
            if let listed { return DropboxCopySource(caller: caller, path: location.path, facts: listed) }
            return try await DropboxCopySource.open(location, caller: caller)
        default:
            let location = try S3Location(job: job.source)
            let access = S3AccountAccess(tokens: tokens, httpClient: httpClient)
            // When the store copies it itself (one account on both sides) no byte is read here, and a listed object
            // needs no look either: the store keeps its metadata, and the copy is pinned to the listed ETag.
            let inside = job.account == location.account && EndpointSyntax.scheme(of: job.destination) == "s3"
            if inside, job.attempt <= 1, let etag = from.version, let size = from.size, size <= S3Client.maxCopyObjectSize {
                let client = try await access.client(for: location.account, logger: logger)
                return S3CopySource(
                    client: client, location: location,
                    facts: CopySourceFacts(
                        size: size, version: etag, modified: RemoteTimestamp.iso8601(from.modified), md5: S3ObjectFetch.plainMD5(etag)),
                    listedOnly: true)
            }
            // A small listed object whose bytes will be needed is read whole at once: its metadata comes with them.
            if job.attempt <= 1, writing, !inside, let etag = from.version, let size = from.size,
                size <= S3CopySource.prefetchLimit
            {
                return try await S3CopySource.read(listed: location, etag: etag, access: access, logger: logger)
            }
            return try await S3CopySource.open(location, access: access, logger: logger)
        }
    }

    /// Lists a folder copy's source page by page, each page's files becoming child copies in the job's batch.
    func fanOut(_ job: ClaimedJob, from: CopySourceDetails, context: JobContext) async throws -> JobResult {
        guard job.destination.hasSuffix("/") else {
            throw JobFailure.permanent("bad_destination", "a folder copy needs a folder destination (ending in /)")
        }
        var target = CopyTarget(job: job, from: from)
        // Only when unchanged files are left alone does a child look at its destination: then the listing looks
        // for the children (an S3 range walk per page; a Dropbox folder once).
        if target.treeKey != nil, let account = job.account {
            if let folder = try? S3Location(job: job.destination) {
                let client = try await S3AccountAccess(tokens: tokens, httpClient: httpClient).client(for: account, logger: context.logger)
                target.destination = S3DestinationListing(client: client, bucket: folder.bucket, prefix: folder.key)
            } else if let folder = try? DropboxLocation(job: job.destination) {
                target.destination = DropboxDestinationListing(
                    caller: DropboxCaller(account: folder.account, tokens: tokens, logger: context.logger), folder: folder.path)
            }
        }
        switch from.provider {
        case "dropbox":
            let location = try DropboxLocation(job: job.source)
            let caller = DropboxCaller(account: location.account, tokens: tokens, logger: context.logger)
            // The Dropbox root is "" to list_folder; any other folder is named without its trailing /.
            let path = location.path == "/" ? "" : String(location.path.dropLast())
            var listing = DropboxFolderFanOut(
                job: job, context: context, caller: caller, details: DropboxFetchDetails(root: "/", recursive: true),
                account: location.account, path: path, folderLower: path.lowercased(), root: "/")
            listing.copy = target
            return try await listing.run()
        default:
            let location = try S3Location(job: job.source)
            let client = try await S3AccountAccess(tokens: tokens, httpClient: httpClient).client(for: location.account, logger: context.logger)
            var listing = S3PrefixFanOut(
                job: job, context: context, client: client, details: S3FetchDetails(root: "/", recursive: true), location: location, root: "/")
            listing.copy = target
            return try await listing.run()
        }
    }
}
