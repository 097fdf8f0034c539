import FerryCore
import FerryGoogleDrive
import FerryProviders
import FerryStore
import Logging

/// Google Drive as a copy source: a file by path or id, a folder walked breadth first (every subfolder listed in
/// `files.list` pages by the same job, page by page, resumably) into one child copy per file, each child naming its
/// file by id (same-name siblings are distinct files in Drive).
struct GoogleDriveCopyReader: CopySourceReader {
    let tokens: AccountTokenProvider
    let environment: ProviderEnvironment
    let folders: GoogleDriveFolderCache

    func account(of source: String) throws -> String {
        try GoogleDriveLocation(job: source).account
    }

    func open(_ job: ClaimedJob, from: CopySourceDetails, writing: Bool, logger: Logger) async throws -> any CopySource {
        let location = try GoogleDriveLocation(job: job.source)
        let caller = GoogleDriveCaller(account: location.account, tokens: tokens, logger: logger)
        let id: String
        switch location.target {
        case .id(let fileID):
            id = fileID
        case .path(let path):
            let resolver = GoogleDrivePathResolver(caller: caller, environment: environment, cache: folders, account: location.account)
            guard let file = try await resolver.item(at: path) else {
                throw JobFailure.permanent("source_not_found", "\(location.text) is not there")
            }
            id = file.id
        }
        return GoogleDriveCopySource(file: try await GoogleDriveReadableFile.open(id: id, caller: caller), account: location.account)
    }

    func fanOut(_ job: ClaimedJob, target: CopyTarget, context: JobContext) async throws -> JobResult {
        let location = try GoogleDriveLocation(job: job.source)
        let caller = GoogleDriveCaller(account: location.account, tokens: tokens, logger: context.logger)
        var cursor: GoogleDriveCopyCursor
        if let recorded = GoogleDriveCopyCursor(session: job.session) {
            cursor = recorded
        } else {
            let root: String
            switch location.target {
            case .id(let folderID): root = folderID
            case .path(let path):
                let resolver = GoogleDrivePathResolver(caller: caller, environment: environment, cache: folders, account: location.account)
                guard let folder = try await resolver.item(at: path), folder.isFolder else {
                    throw JobFailure.permanent("source_not_found", "\(location.text) is not a folder in the Drive")
                }
                root = folder.id
            }
            cursor = GoogleDriveCopyCursor(root: root)
        }
        let filter = ListingFilterReader.filter(of: job)
        while let folder = cursor.folders.first {
            let page = try await GoogleDriveFolderPages(caller: caller, folderID: folder.id).page(after: cursor.continuation)
            var children = [FanOutChild]()
            for item in page.files {
                cursor.listed += 1
                if let child = child(item, in: folder, account: location.account, target: target, filter: filter, cursor: &cursor) {
                    children.append(child)
                }
            }
            cursor.continuation = page.nextPageToken
            if page.nextPageToken == nil { cursor.folders.removeFirst() }
            guard cursor.folders.count <= GoogleDriveCopyCursor.maxFolders else {
                throw JobFailure.permanent("too_many_folders", "the folder holds more than \(GoogleDriveCopyCursor.maxFolders) folders waiting to be listed; copy its subfolders one by one")
            }
            try await context.fanOut(await target.hinted(children, logger: context.logger), bytesDone: 0, session: cursor.json)
        }
        return JobResult(bytes: 0, details: .object(["listed": .int(cursor.listed), "skipped": .int(cursor.skipped)]))
    }

    /// The child copy of one listed item; a subfolder joins the walk instead, and an item without a usable name (or a
    /// Google Docs item, which has no bytes to copy) is skipped and counted.
    private func child(
        _ item: GoogleDriveFile, in folder: GoogleDriveCopyCursor.Folder, account: String, target: CopyTarget, filter: FileFilter?,
        cursor: inout GoogleDriveCopyCursor
    ) -> FanOutChild? {
        guard SafePath.component(item.name) != nil, !item.isGoogleDocument else {
            cursor.skipped += 1
            return nil
        }
        let relative = folder.prefix + item.name
        if item.isFolder {
            cursor.folders.append(GoogleDriveCopyCursor.Folder(id: item.id, prefix: relative + "/"))
            return nil
        }
        let modified = GoogleDriveTime.parse(item.modifiedTime) ?? .distantPast
        if let filter, case .skip = filter.verdict(path: relative, size: item.size ?? 0, modified: modified) { return nil }
        let listed = CopySourceDetails(
            provider: target.from.provider, account: account, size: item.size, version: item.headRevisionId ?? item.md5Checksum,
            modified: item.modifiedTime)
        return target.child(relative: relative, source: GoogleDriveLocation(account: account, target: .id(item.id)).text, listed: listed)
    }
}
