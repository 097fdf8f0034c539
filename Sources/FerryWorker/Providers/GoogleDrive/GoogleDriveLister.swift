import FerryCore
import FerryGoogleDrive
import FerryProviders
import Logging
import NIOCore

/// Google Drive's listing capability: Drive lists one folder at a time, so a recursive listing walks the tree
/// breadth first with ``GoogleDriveFolderPages`` (as a folder copy does), at most ``BreadthFirstListing/maxFolders``
/// folders waiting. Google Docs items (no bytes) and names that cannot be a path component (`/`, `.`, `..`) are
/// skipped with a notice; entries carry `md5Checksum` and `sha256Checksum` when Drive states them.
struct GoogleDriveLister: RemoteLister {
    let tokens: AccountTokenProvider
    let environment: ProviderEnvironment
    let folders: GoogleDriveFolderCache

    func list(_ remote: String, options: RemoteListOptions, logger: Logger, page: ([RemoteEntry]) async throws -> Void) async throws {
        let location = try GoogleDriveLocation(remote, field: "remote", line: nil)
        let caller = GoogleDriveCaller(account: location.account, tokens: tokens, logger: logger)
        let skipped = try await BreadthFirstListing.walk(
            top: try await folderID(location, caller: caller), remote: remote, options: options,
            listPage: { folderID, token in
                let listed = try await GoogleDriveFolderPages(caller: caller, folderID: folderID).page(after: token)
                return (listed.files, listed.nextPageToken)
            },
            usable: { Self.isUsable($0.name) && !$0.isGoogleDocument },
            entry: { entry($0, relative: $1, account: location.account) }, page: page)
        if skipped > 0 { logger.notice("Google Docs items and unusable names skipped", metadata: ["skipped": "\(skipped)"]) }
    }

    private func folderID(_ location: GoogleDriveLocation, caller: GoogleDriveCaller) async throws -> String {
        switch location.target {
        case .id(let id):
            return id
        case .path(let path):
            let resolver = GoogleDrivePathResolver(caller: caller, environment: environment, cache: folders, account: location.account)
            guard let folder = try await resolver.item(at: path.hasSuffix("/") ? path : path + "/"), folder.isFolder else {
                throw RemoteListingError(.notFound, "\(location.text) is not a folder in the Drive", fix: "check the path (ferry lsf on its parent shows what is there)")
            }
            return folder.id
        }
    }

    private func entry(_ item: GoogleDriveFile, relative: String, account: String) -> RemoteEntry {
        let reference = GoogleDriveLocation(account: account, target: .id(item.id)).text
        guard !item.isFolder else { return RemoteEntry(path: relative, isFolder: true, size: nil, modified: nil, reference: reference) }
        var digests = [ContentDigest]()
        if let md5 = item.md5Checksum { digests.append(ContentDigest(kind: .md5, value: md5.lowercased())) }
        if let sha256 = item.sha256Checksum { digests.append(ContentDigest(kind: .sha256, value: sha256.lowercased())) }
        return RemoteEntry(
            path: relative, isFolder: false, size: item.size ?? 0, modified: GoogleDriveTime.parse(item.modifiedTime), digests: digests,
            reference: reference, version: item.headRevisionId ?? item.md5Checksum)
    }

    /// Drive names may hold anything; a listing's paths are `/`-separated, so a name must be one component.
    static func isUsable(_ name: String) -> Bool {
        !name.isEmpty && name != "." && name != ".." && !name.contains("/")
    }

    func read(_ entry: RemoteEntry, logger: Logger, into body: (ByteBuffer) async throws -> Void) async throws {
        let location = try GoogleDriveLocation(entry.reference, field: "remote", line: nil)
        guard case .id(let id) = location.target else {
            throw RemoteListingError(.notReadable, "\(location.text) names no listed file", fix: "read files a listing found")
        }
        let caller = GoogleDriveCaller(account: location.account, tokens: tokens, logger: logger)
        let file = try await GoogleDriveReadableFile.open(id: id, caller: caller)
        let step: Int64 = 8 * 1024 * 1024
        var offset: Int64 = 0
        while offset < file.size {
            let end = min(file.size, offset + step)
            try await body(try await file.read(offset..<end))
            offset = end
        }
    }
}
