import FerryCore
import FerryProviders
import FerryStore
import Logging

/// Dropbox as a copy source: files read by revision, folders listed with `list_folder` into child copies.
struct DropboxCopyReader: CopySourceReader {
    let tokens: AccountTokenProvider

    func account(of source: String) throws -> String {
        try DropboxLocation(job: source).account
    }

    /// A file a folder listing found is taken as listed on its first attempt (one request less per file; reads are
    /// pinned to the listed revision, so a file changed since fails the attempt as `source_changed`); later
    /// attempts look it up afresh.
    func open(_ job: ClaimedJob, from: CopySourceDetails, writing: Bool, logger: Logger) async throws -> any CopySource {
        let location = try DropboxLocation(job: job.source)
        let caller = DropboxCaller(account: location.account, tokens: tokens, logger: logger)
        if job.attempt <= 1, let size = from.size, let version = from.version {
            let facts = CopySourceFacts(
                size: size, version: version, modified: RemoteTimestamp.iso8601(from.modified),
                digest: from.contentHash.map { ContentDigest(kind: .dropbox, value: $0) })
            return DropboxCopySource(caller: caller, path: location.path, facts: facts)
        }
        return try await DropboxCopySource.open(location, caller: caller)
    }

    func fanOut(_ job: ClaimedJob, target: CopyTarget, context: JobContext) async throws -> JobResult {
        let location = try DropboxLocation(job: job.source)
        let caller = DropboxCaller(account: location.account, tokens: tokens, logger: context.logger)
        // The Dropbox root is "" to list_folder; any other folder is named without its trailing /.
        let path = location.path == "/" ? "" : String(location.path.dropLast())
        var listing = DropboxFolderFanOut(
            job: job, context: context, caller: caller, details: DropboxFetchDetails(root: "/", recursive: true),
            account: location.account, path: path, folderLower: path.lowercased(), root: "/")
        listing.copy = target
        return try await listing.run()
    }
}
