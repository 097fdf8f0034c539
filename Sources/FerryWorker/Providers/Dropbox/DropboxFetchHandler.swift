import FerryCore
import FerryDropbox
import FerryProviders
import FerryStore
import Foundation

/// Fetches from Dropbox: `ferry enqueue fetch dropbox:ACCOUNT:/path --to LOCAL`.
///
/// A file is downloaded (resumably, verified against Dropbox's `content_hash`) or, with `thumbnail`, its
/// thumbnail is. A folder is listed page by page, each page's files becoming child fetch jobs in the same batch
/// (see ``DropboxFolderFanOut``); children are always files and are never listed again.
public struct DropboxFetchHandler: JobHandler {
    let tokens: AccountTokenProvider

    /// - Parameter tokens: access tokens for the jobs' accounts (refreshed and shared across workers).
    public init(tokens: AccountTokenProvider) {
        self.tokens = tokens
    }

    /// `dropbox-fetch`, for logs and metrics.
    public var name: String { "dropbox-fetch" }


    public func run(_ job: ClaimedJob, context: JobContext) async throws -> JobResult {
        let location = try DropboxLocation(job: job.source)
        let (account, path) = (location.account, location.path)
        let details = try DropboxFetchDetails(job: job)
        let caller = DropboxCaller(account: account, tokens: tokens, logger: context.logger)
        func file(_ target: String, looked metadata: DropboxFileMetadata? = nil) -> DropboxFileFetch {
            var details = details
            if let metadata, details.listedContentHash == nil {
                // What the lookup saw, as a listing records it for its children: a file already at the target
                // with this size and content hash is not downloaded again.
                details.listedSize = metadata.size
                details.listedContentHash = metadata.contentHash
            }
            return DropboxFileFetch(job: job, context: context, caller: caller, details: details, path: path, target: target)
        }
        if details.isEntry { return try await file(job.destination).run() }

        // The Dropbox root has no metadata of its own: it is always a folder.
        let remote = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        let entry: DropboxEntry
        if remote == "/" {
            entry = .folder(pathLower: "", pathDisplay: "", id: nil)
        } else {
            do {
                entry = try await caller.call("looking up \(remote)") { client, token in
                    try await client.getMetadata(path: remote, accessToken: token)
                }
            } catch let error as DropboxError {
                throw error.jobFailure(doing: "looking up \(remote)")
            }
        }
        switch entry {
        case .file(let metadata):
            if details.thumbnail != nil && !DropboxChildPath.isImage(metadata.name) {
                throw JobFailure.permanent("not_an_image", "\(metadata.name) is not an image Dropbox makes thumbnails of")
            }
            guard job.destination.hasSuffix("/") else { return try await file(job.destination, looked: metadata).run() }
            guard let name = SafePath.component(metadata.name) else {
                throw JobFailure.permanent("unsafe_path", "the remote name \(metadata.name.debugDescription) is not a safe local file name")
            }
            return try await file(
                details.thumbnail == nil ? job.destination + name : DropboxChildPath.thumbnailPath(job.destination + name), looked: metadata
            ).run()
        case .folder(let pathLower, _, _):
            let folder = job.destination.hasSuffix("/") ? job.destination : job.destination + "/"
            return try await DropboxFolderFanOut(
                job: job, context: context, caller: caller, details: details, account: account, path: remote,
                folderLower: pathLower.isEmpty && remote != "/" ? remote.lowercased() : pathLower, root: folder
            ).run()
        case .deleted:
            throw JobFailure.permanent("not_found", "\(remote) was deleted")
        }
    }
}
