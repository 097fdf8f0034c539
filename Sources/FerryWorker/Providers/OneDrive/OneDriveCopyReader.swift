import FerryCore
import FerryOneDrive
import FerryProviders
import FerryStore
import Logging

/// OneDrive as a copy source: a file by path or id, a folder walked breadth first (every subfolder's `children`
/// pages listed by the same job, page by page, resumably) into one child copy per file, each naming its file by id.
struct OneDriveCopyReader: CopySourceReader {
    let tokens: AccountTokenProvider

    func account(of source: String) throws -> String {
        try OneDriveLocation(job: source).account
    }

    func open(_ job: ClaimedJob, from: CopySourceDetails, writing: Bool, logger: Logger) async throws -> any CopySource {
        let location = try OneDriveLocation(job: job.source)
        let caller = OneDriveCaller(account: location.account, tokens: tokens, logger: logger)
        let item: OneDriveItem
        do {
            item = try await OneDriveFetchHandler.lookUp(location, caller: caller)
        } catch let failure as JobFailure where failure.code == "not_found" {
            throw JobFailure.permanent("source_not_found", "\(location.text) is not there")
        }
        guard !item.isFolder, item.size != nil else { throw JobFailure.permanent("not_a_file", "\(item.name) is a folder") }
        return OneDriveCopySource(caller: caller, item: item, account: location.account)
    }

    func fanOut(_ job: ClaimedJob, target: CopyTarget, context: JobContext) async throws -> JobResult {
        let location = try OneDriveLocation(job: job.source)
        let caller = OneDriveCaller(account: location.account, tokens: tokens, logger: context.logger)
        var cursor: OneDriveCopyCursor
        if let recorded = OneDriveCopyCursor(session: job.session) {
            cursor = recorded
        } else {
            let folder = try await OneDriveFetchHandler.lookUp(location, caller: caller)
            guard folder.isFolder else { throw JobFailure.permanent("source_not_found", "\(location.text) is not a folder in the OneDrive") }
            cursor = OneDriveCopyCursor(root: folder.id)
        }
        let filter = ListingFilterReader.filter(of: job)
        while let folder = cursor.folders.first {
            let (id, nextLink) = (folder.id, cursor.continuation)
            let page = try await caller.job("listing a folder") { client, token in
                try await client.children(of: id, nextLink: nextLink, accessToken: token)
            }
            var children = [FanOutChild]()
            for item in page.items {
                cursor.listed += 1
                if let child = child(item, in: folder, account: location.account, target: target, filter: filter, cursor: &cursor) {
                    children.append(child)
                }
            }
            cursor.continuation = page.nextLink
            if page.nextLink == nil { cursor.folders.removeFirst() }
            guard cursor.folders.count <= OneDriveCopyCursor.maxFolders else {
                throw JobFailure.permanent(
                    "too_many_folders", "the folder holds more than \(OneDriveCopyCursor.maxFolders) folders waiting to be listed; copy its subfolders one by one")
            }
            try await context.fanOut(await target.hinted(children, logger: context.logger), bytesDone: 0, session: cursor.json)
        }
        return JobResult(bytes: 0, details: .object(["listed": .int(cursor.listed), "skipped": .int(cursor.skipped)]))
    }

    private func child(
        _ item: OneDriveItem, in folder: OneDriveCopyCursor.Folder, account: String, target: CopyTarget, filter: FileFilter?,
        cursor: inout OneDriveCopyCursor
    ) -> FanOutChild? {
        guard SafePath.component(item.name) != nil else {
            cursor.skipped += 1
            return nil
        }
        let relative = folder.prefix + item.name
        if item.isFolder {
            cursor.folders.append(OneDriveCopyCursor.Folder(id: item.id, prefix: relative + "/"))
            return nil
        }
        let modified = OneDriveTime.parse(item.modified) ?? .distantPast
        if let filter, case .skip = filter.verdict(path: relative, size: item.size ?? 0, modified: modified) { return nil }
        let listed = CopySourceDetails(provider: target.from.provider, account: account, size: item.size, version: item.version, modified: item.modified)
        return target.child(relative: relative, source: OneDriveLocation(account: account, target: .id(item.id)).text, listed: listed)
    }
}
