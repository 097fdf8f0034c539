import FerryCore
import FerryDropbox
import FerryProviders
import Logging
import NIOCore

/// Dropbox's listing capability: ``DropboxFolderPages`` (recursive when asked, 2,000 entries a page, with the cursor
/// Dropbox gives), as the folder fan-out and the destination index list. Entries carry
/// Dropbox's `content_hash`; paths are `path_display` below the listed folder (``DropboxChildPath``).
struct DropboxLister: RemoteLister {
    let tokens: AccountTokenProvider

    func list(_ remote: String, options: RemoteListOptions, logger: Logger, page: ([RemoteEntry]) async throws -> Void) async throws {
        let location = try DropboxLocation(remote, field: "remote", line: nil)
        let caller = DropboxCaller(account: location.account, tokens: tokens, logger: logger)
        let path = DropboxFolderPages.folder(of: location.path)
        let pages = DropboxFolderPages(caller: caller, path: path, recursive: options.recursive, action: "listing")
        var cursor: String?
        while true {
            let listed: DropboxListPage
            do {
                listed = try await pages.page(after: cursor)
            } catch let error as DropboxError where error.jobFailure(doing: "listing").code == "not_found" {
                throw RemoteListingError(.notFound, "\(remote) is not a folder in the Dropbox", fix: "check the path (ferry lsf on its parent shows what is there)")
            } catch let error as DropboxError {
                // A reset cursor (or any other failure) ends the listing: a command is run again, not resumed.
                throw error.jobFailure(doing: "listing \(location.path)")
            }
            try await page(entries(of: listed, folderLower: path.lowercased(), account: location.account, logger: logger))
            guard listed.hasMore else { return }
            cursor = listed.cursor
        }
    }

    private func entries(of listed: DropboxListPage, folderLower: String, account: String, logger: Logger) -> [RemoteEntry] {
        listed.entries.compactMap { entry in
            if case .deleted = entry { return nil }
            // A recursive listing names the folder itself first: not an entry below it.
            if entry.pathLower == folderLower { return nil }
            guard let relative = DropboxChildPath.relative(folderLower: folderLower, pathLower: entry.pathLower, pathDisplay: entry.pathDisplay) else {
                logger.warning("skipping a listed entry outside the folder", metadata: ["name": "\(entry.pathDisplay.debugDescription)"])
                return nil
            }
            let reference = DropboxLocation(account: account, path: entry.pathDisplay).text
            guard case .file(let file) = entry else {
                return RemoteEntry(path: relative, isFolder: true, size: nil, modified: nil, reference: reference)
            }
            return RemoteEntry(
                path: relative, isFolder: false, size: file.size, modified: RemoteTimestamp.iso8601(file.clientModified),
                digests: file.contentHash.map { [ContentDigest(kind: .dropbox, value: $0)] } ?? [], reference: reference, version: file.rev)
        }
    }

    func read(_ entry: RemoteEntry, logger: Logger, into body: (ByteBuffer) async throws -> Void) async throws {
        let location = try DropboxLocation(entry.reference, field: "remote", line: nil)
        let caller = DropboxCaller(account: location.account, tokens: tokens, logger: logger)
        do {
            let download = try await caller.call("reading") { client, token in
                try await client.download(path: location.path, rangeStart: nil, accessToken: token)
            }
            for try await piece in download.body { try await body(piece) }
        } catch let error as DropboxError {
            throw error.jobFailure(doing: "reading \(location.path)")
        }
    }
}
