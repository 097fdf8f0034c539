import FerryCore
import FerryOneDrive
import FerryProviders
import Logging
import NIOCore

/// OneDrive's listing capability: Graph lists one folder at a time, so a recursive listing walks the tree breadth
/// first over `children` pages (as a folder copy does), at most ``BreadthFirstListing/maxFolders`` folders waiting.
/// Names that cannot be a path component are skipped with a notice; entries carry `quickXorHash` (and `sha256Hash`
/// when Graph states it).
struct OneDriveLister: RemoteLister {
    let tokens: AccountTokenProvider

    func list(_ remote: String, options: RemoteListOptions, logger: Logger, page: ([RemoteEntry]) async throws -> Void) async throws {
        let location = try OneDriveLocation(remote, field: "remote", line: nil)
        let caller = OneDriveCaller(account: location.account, tokens: tokens, logger: logger)
        let top: OneDriveItem
        do {
            top = try await OneDriveFetchHandler.lookUp(location, caller: caller)
        } catch let failure as JobFailure where failure.code == "not_found" {
            throw RemoteListingError(.notFound, "\(location.text) is not in the OneDrive", fix: "check the path (ferry lsf on its parent shows what is there)")
        }
        guard top.isFolder else {
            throw RemoteListingError(.notFound, "\(location.text) is not a folder", fix: "list the folder it is in")
        }
        let skipped = try await BreadthFirstListing.walk(
            top: top.id, remote: remote, options: options,
            listPage: { id, link in
                let listed = try await caller.job("listing a folder") { client, token in
                    try await client.children(of: id, nextLink: link, accessToken: token)
                }
                return (listed.items, listed.nextLink)
            },
            usable: { SafePath.component($0.name) != nil },
            entry: { Self.entry($0, relative: $1, account: location.account) }, page: page)
        if skipped > 0 { logger.notice("unusable names skipped", metadata: ["skipped": "\(skipped)"]) }
    }

    static func entry(_ item: OneDriveItem, relative: String, account: String) -> RemoteEntry {
        let reference = OneDriveLocation(account: account, target: .id(item.id)).text
        guard !item.isFolder else { return RemoteEntry(path: relative, isFolder: true, size: nil, modified: nil, reference: reference) }
        var digests = [ContentDigest]()
        if let hash = item.quickXorHash { digests.append(ContentDigest(kind: .oneDriveQuickXor, value: hash)) }
        if let sha256 = item.sha256Hash { digests.append(ContentDigest(kind: .sha256, value: sha256)) }
        return RemoteEntry(
            path: relative, isFolder: false, size: item.size ?? 0, modified: OneDriveTime.parse(item.modified), digests: digests,
            reference: reference, version: item.version)
    }

    func read(_ entry: RemoteEntry, logger: Logger, into body: (ByteBuffer) async throws -> Void) async throws {
        let location = try OneDriveLocation(entry.reference, field: "remote", line: nil)
        guard case .id = location.target else {
            throw RemoteListingError(.notReadable, "\(location.text) names no listed file", fix: "read files a listing found")
        }
        let caller = OneDriveCaller(account: location.account, tokens: tokens, logger: logger)
        let item = try await OneDriveFetchHandler.lookUp(location, caller: caller)
        let source = OneDriveCopySource(caller: caller, item: item, account: location.account)
        let step: Int64 = 8 * 1024 * 1024
        var offset: Int64 = 0
        while offset < source.facts.size {
            let end = min(source.facts.size, offset + step)
            try await body(try await source.readRange(offset..<end))
            offset = end
        }
    }
}
