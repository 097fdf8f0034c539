import Crypto
import FerryCore
import FerryDropbox
import FerryProviders
import FerryStore
import Foundation

/// One attempt at listing a Dropbox folder and enqueuing a child fetch per file.
///
/// Each page's children and the cursor after that page are committed together (`JobContext.fanOut`), so a
/// crashed listing resumes at the next page, and children are keyed by parent and `path_lower`, so a page
/// listed twice (after a crash or a `reset`) enqueues nothing twice.
struct DropboxFolderFanOut: Sendable {
    let job: ClaimedJob
    let context: JobContext
    let caller: DropboxCaller
    let details: DropboxFetchDetails
    let account: String
    /// Remote folder as given (`/Camera`, or `/` for the whole Dropbox).
    let path: String
    /// `path_lower` of that folder (`""` for the root).
    let folderLower: String
    /// Local folder the listed tree is mirrored into.
    let root: String
    /// A folder copy: each file becomes a child copy to this target instead of a fetch.
    var copy: CopyTarget? = nil

    /// How often one attempt starts over after Dropbox expired its cursor before giving the attempt up.
    static let maximumResets = 5

    func run() async throws -> JobResult {
        var state = DropboxListingCursor(session: job.session) ?? DropboxListingCursor()
        if state.complete { return JobResult(bytes: 0, details: state.result) }
        if state.cursor != nil {
            context.logger.info("resuming the listing after the last recorded page", metadata: ["listed": "\(state.listed)"])
        }
        var resets = 0
        while true {
            let page: DropboxListPage
            do {
                page = try await nextPage(after: state.cursor)
            } catch let error as DropboxError where error.isCursorReset {
                resets += 1
                guard resets <= Self.maximumResets else {
                    throw JobFailure.retryable("listing_reset", "Dropbox reset the listing of \(path) \(resets) times in a row")
                }
                // The cursor expired: list again from the start; keyed children make the repeat harmless.
                context.logger.notice("listing cursor was reset by Dropbox; listing again from the start")
                state.startOver()
                continue
            } catch let error as DropboxError {
                throw error.jobFailure(doing: "listing \(path)")
            }
            var children = self.children(of: page, counting: &state)
            if let copy { children = await copy.hinted(children, logger: context.logger) }
            state.cursor = page.cursor
            state.pages += 1
            state.complete = !page.hasMore
            // A listing moves no bytes itself: its children carry the sizes, so batch byte totals stay true.
            try await context.fanOut(children, bytesDone: 0, session: state.json)
            if state.complete { return JobResult(bytes: 0, details: state.result) }
        }
    }

    private func nextPage(after cursor: String?) async throws -> DropboxListPage {
        try await DropboxFolderPages(
            caller: caller, path: path, recursive: details.isRecursive, limit: details.pageSize, action: "listing \(path)"
        ).page(after: cursor)
    }

    /// The page's file entries as child jobs; folders and deleted entries are skipped, and so are entries
    /// without a safe local path (and, for thumbnails, non-images), each counted.
    func children(of page: DropboxListPage, counting state: inout DropboxListingCursor) -> [FanOutChild] {
        var children: [FanOutChild] = []
        children.reserveCapacity(page.entries.count)
        let filter = ListingFilterReader.filter(of: job)
        for entry in page.entries {
            state.listed += 1
            guard case .file(let file) = entry else { continue }
            if let copy {
                guard let relative = DropboxChildPath.relative(folderLower: folderLower, pathLower: file.pathLower, pathDisplay: file.pathDisplay),
                    let child = copy.child(
                        relative: relative, source: DropboxLocation(account: account, path: file.pathDisplay).text,
                        listed: CopySourceDetails(
                            provider: "dropbox", account: account, size: file.size, version: file.rev, contentHash: file.contentHash,
                            modified: file.clientModified))
                else {
                    state.skippedUnsafe += 1
                    context.logger.warning("skipping a listed file the destination cannot name", metadata: ["name": "\(file.name.debugDescription)"])
                    continue
                }
                if let filter, case .skip = filter.verdict(path: relative, size: file.size, modified: RemoteTimestamp.iso8601(file.clientModified) ?? .distantPast) {
                    continue
                }
                state.files += 1
                children.append(child)
                continue
            }
            guard let target = DropboxChildPath.target(root: root, folderLower: folderLower, pathLower: file.pathLower, pathDisplay: file.pathDisplay)
            else {
                state.skippedUnsafe += 1
                context.logger.warning("skipping a listed file without a safe local path", metadata: ["name": "\(file.name.debugDescription)"])
                continue
            }
            if details.thumbnail != nil && !DropboxChildPath.isImage(file.name) {
                state.skippedNotImage += 1
                continue
            }
            if let filter, case .skip = filter.verdict(
                path: String(target.dropFirst(root.hasSuffix("/") ? root.count : root.count + 1)), size: file.size,
                modified: RemoteTimestamp.iso8601(file.clientModified) ?? .distantPast)
            {
                continue
            }
            state.files += 1
            children.append(child(file, target: details.thumbnail == nil ? target : DropboxChildPath.thumbnailPath(target)))
        }
        return children
    }

    private func child(_ file: DropboxFileMetadata, target: String) -> FanOutChild {
        let childDetails = DropboxFetchDetails(
            root: root, thumbnail: details.thumbnail, entry: true, listedRev: file.rev, listedContentHash: file.contentHash,
            listedSize: file.size)
        return FanOutChild(
            kind: .fetch, source: "dropbox:\(account):\(file.pathDisplay)", destination: target, account: account,
            idempotencyKey: Self.idempotencyKey(parent: job.jobID, pathLower: file.pathLower),
            metadata: .object([
                "name": .string(file.name), "path": .string(file.pathDisplay), "client_modified": .string(file.clientModified),
            ]),
            bytesTotal: details.thumbnail == nil ? file.size : nil, details: (try? JSONValue(encoding: childDetails))?.objectValue ?? [:])
    }

    /// `<parent job id>/<hex SHA-256 of path_lower>`: unique per parent and file, and short whatever the path.
    static func idempotencyKey(parent: UUID, pathLower: String) -> String {
        parent.uuidString.lowercased() + "/" + PartialDownload.hex(SHA256.hash(data: Array(pathLower.utf8)))
    }
}
