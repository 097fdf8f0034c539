import FerryCore
import FerryGoogleDrive
import FerryProviders
import FerryStore
import Foundation

/// Fetches from Google Drive: `ferry enqueue fetch gdrive:ACCOUNT:/path` (or `gdrive:ACCOUNT:id:FILEID`) `--to LOCAL`.
///
/// A file is downloaded (resumably, checked against its MD5); a Google Docs item is exported to the format the job
/// names (`export`) or refused, naming the option. A folder is listed page by page into child fetch jobs (see
/// ``GoogleDriveFolderFanOut``); with `recursive`, each subfolder becomes a child listing of its own.
public struct GoogleDriveFetchHandler: JobHandler {
    let tokens: AccountTokenProvider
    let environment: ProviderEnvironment
    let folders: GoogleDriveFolderCache

    public init(tokens: AccountTokenProvider, environment: ProviderEnvironment) {
        self.init(tokens: tokens, environment: environment, folders: GoogleDriveFolderCache())
    }

    init(tokens: AccountTokenProvider, environment: ProviderEnvironment, folders: GoogleDriveFolderCache) {
        self.tokens = tokens
        self.environment = environment
        self.folders = folders
    }

    public var name: String { "gdrive-fetch" }

    public func run(_ job: ClaimedJob, context: JobContext) async throws -> JobResult {
        let location = try GoogleDriveLocation(job: job.source)
        let details = try GoogleDriveFetchDetails(job: job)
        let caller = GoogleDriveCaller(account: location.account, tokens: tokens, logger: context.logger)
        let item = try await lookUp(location, caller: caller)
        if item.isFolder {
            let folder = job.destination.hasSuffix("/") ? job.destination : job.destination + "/"
            // A subfolder a listing enqueued keeps the fetch's root; a fetch named by the user writes into its target.
            let root = details.prefix == nil ? folder : details.root
            return try await GoogleDriveFolderFanOut(
                job: job, context: context, pages: GoogleDriveFolderPages(caller: caller, folderID: item.id, pageSize: details.pageSize),
                details: details, account: location.account, root: root, prefix: details.prefix ?? ""
            ).run()
        }
        var target = job.destination
        if target.hasSuffix("/") {
            guard SafePath.component(item.name) != nil else {
                throw JobFailure.permanent("unsafe_path", "the remote name \(item.name.debugDescription) is not a safe local file name")
            }
            target += item.isGoogleDocument ? (details.export?.fileName(for: item.name) ?? item.name) : item.name
        }
        return try await caller.tokens.httpClient.onEventLoop {
            try await GoogleDriveFileFetch(job: job, context: context, caller: caller, details: details, file: item, target: target).run()
        }
    }

    private func lookUp(_ location: GoogleDriveLocation, caller: GoogleDriveCaller) async throws -> GoogleDriveFile {
        switch location.target {
        case .id(let id):
            return try await caller.job("looking up \(id)") { client, token in try await client.getFile(id: id, accessToken: token) }
        case .path(let path):
            let resolver = GoogleDrivePathResolver(caller: caller, environment: environment, cache: folders, account: location.account)
            guard let item = try await resolver.item(at: path) else {
                throw JobFailure.permanent("not_found", "nothing at \(path) in the account's Drive")
            }
            return item
        }
    }
}
