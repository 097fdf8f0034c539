import Crypto
import FerryCore
import FerryOneDrive
import FerryProviders
import FerryStore
import Foundation

/// One attempt at listing a OneDrive folder and enqueuing a child fetch per file (and, when recursive, a child
/// listing per subfolder).
///
/// Each page's children and the `@odata.nextLink` after it are committed together (`JobContext.fanOut`), so a
/// crashed listing resumes at the next page; children are keyed by parent and item id, so a page listed twice
/// enqueues nothing twice. Names are remote input: one that is not a safe local name is skipped and counted.
struct OneDriveFolderFanOut: Sendable {
    let job: ClaimedJob
    let context: JobContext
    let caller: OneDriveCaller
    let folderID: String
    let details: OneDriveFetchDetails
    let account: String
    let root: String
    let prefix: String

    func run() async throws -> JobResult {
        var state = OneDriveListingCursor(session: job.session) ?? OneDriveListingCursor()
        if state.complete { return JobResult(bytes: 0, details: state.result) }
        if state.continuation != nil { context.logger.info("resuming the listing after the last recorded page", metadata: ["listed": "\(state.listed)"]) }
        let filter = ListingFilterReader.filter(of: job)
        let filterJSON = (try? JSONValue.parse(job.spec))?[ListingFilter.specKey]
        while true {
            let (folderID, pageSize, nextLink) = (self.folderID, details.pageSize, state.continuation)
            let page = try await caller.job("listing a folder") { client, token in
                try await client.children(of: folderID, pageSize: pageSize, nextLink: nextLink, accessToken: token)
            }
            let children = page.items.compactMap { child($0, state: &state, filter: filter, filterJSON: filterJSON) }
            state.continuation = page.nextLink
            state.pages += 1
            state.complete = page.nextLink == nil
            try await context.fanOut(children, bytesDone: 0, session: state.json)
            if state.complete { return JobResult(bytes: 0, details: state.result) }
        }
    }

    private func child(_ item: OneDriveItem, state: inout OneDriveListingCursor, filter: FileFilter?, filterJSON: JSONValue?) -> FanOutChild? {
        guard let relative = state.admit(item, prefix: prefix, logger: context.logger) else { return nil }
        if item.isFolder {
            guard let encoded = state.subfolder(details, relative: relative, filterJSON: filterJSON) else { return nil }
            return fanOutChild(item, destination: root + relative + "/", bytesTotal: nil, details: encoded)
        }
        let modified = OneDriveTime.parse(item.modified) ?? .distantPast
        guard let target = state.fileTarget(relative, size: item.size, modified: modified, root: root, filter: filter) else { return nil }
        let childDetails = OneDriveFetchDetails(
            root: root, entry: true, listedVersion: item.version, listedQuickXor: item.quickXorHash, listedSize: item.size)
        return fanOutChild(item, destination: target, bytesTotal: item.size, details: (try? JSONValue(encoding: childDetails))?.objectValue ?? [:])
    }

    private func fanOutChild(_ item: OneDriveItem, destination: String, bytesTotal: Int64?, details: [String: JSONValue]) -> FanOutChild {
        FanOutChild(
            kind: .fetch, source: OneDriveLocation(account: account, target: .id(item.id)).text, destination: destination, account: account,
            idempotencyKey: job.jobID.uuidString.lowercased() + "/" + PartialDownload.hex(SHA256.hash(data: Array(item.id.utf8))),
            metadata: .object(["name": .string(item.name), "id": .string(item.id)]),
            bytesTotal: bytesTotal, details: details)
    }
}
