import FerryCore
import FerryOneDrive
import FerryProviders
import FerryStore
import Foundation

/// Fetches from OneDrive: `ferry enqueue fetch onedrive:ACCOUNT:/path` (or `onedrive:ACCOUNT:id:ITEMID`) `--to LOCAL`.
///
/// A file is downloaded resumably (`Range`) through the shared partial-download machinery and checked against its
/// size and `quickXorHash`. A folder is listed page by page (`children`, `@odata.nextLink`) into child fetch jobs;
/// with `recursive`, each subfolder becomes a child listing of its own.
public struct OneDriveFetchHandler: JobHandler {
    let tokens: AccountTokenProvider

    public init(tokens: AccountTokenProvider) {
        self.tokens = tokens
    }

    public var name: String { "onedrive-fetch" }

    public func run(_ job: ClaimedJob, context: JobContext) async throws -> JobResult {
        let location = try OneDriveLocation(job: job.source)
        let details = try OneDriveFetchDetails(job: job)
        let caller = OneDriveCaller(account: location.account, tokens: tokens, logger: context.logger)
        let item = try await Self.lookUp(location, caller: caller)
        if item.isFolder {
            let folder = job.destination.hasSuffix("/") ? job.destination : job.destination + "/"
            let root = details.prefix == nil ? folder : details.root
            return try await OneDriveFolderFanOut(
                job: job, context: context, caller: caller, folderID: item.id, details: details, account: location.account, root: root,
                prefix: details.prefix ?? ""
            ).run()
        }
        var target = job.destination
        if target.hasSuffix("/") {
            guard SafePath.component(item.name) != nil else {
                throw JobFailure.permanent("unsafe_path", "the remote name \(item.name.debugDescription) is not a safe local file name")
            }
            target += item.name
        }
        return try await caller.tokens.httpClient.onEventLoop {
            try await OneDriveFileFetch(job: job, context: context, caller: caller, details: details, item: item, target: target).run()
        }
    }

    static func lookUp(_ location: OneDriveLocation, caller: OneDriveCaller) async throws -> OneDriveItem {
        switch location.target {
        case .id(let id):
            return try await caller.job("looking up \(id)") { client, token in try await client.item(id: id, accessToken: token) }
        case .path(let path):
            do {
                return try await caller.call("looking up \(path)") { client, token in try await client.item(path: path, accessToken: token) }
            } catch let error as OneDriveError where error.code == .notFound {
                throw JobFailure.permanent("not_found", "nothing at \(path) in the account's OneDrive")
            } catch let error as OneDriveError {
                throw error.jobFailure(doing: "looking up \(path)")
            }
        }
    }
}
