import Crypto
import FerryCore
import FerryGoogleDrive
import FerryProviders
import FerryStore
import Foundation

/// One attempt at listing a Drive folder and enqueuing a child fetch per file (and, when recursive, a child listing
/// per subfolder: Drive lists one folder at a time, so a tree is fanned out folder by folder).
///
/// Each page's children and the page token after it are committed together (`JobContext.fanOut`), so a crashed
/// listing resumes at the next page; children are keyed by parent and Drive id, so a page listed twice enqueues
/// nothing twice. Names are remote input: one that is not a safe local name is skipped and counted.
struct GoogleDriveFolderFanOut: Sendable {
    let job: ClaimedJob
    let context: JobContext
    let pages: GoogleDriveFolderPages
    let details: GoogleDriveFetchDetails
    let account: String
    /// The local folder (ending in `/`) the listed tree goes into.
    let root: String
    /// Where this folder's items go below `root` (`""` at the top of the fetch).
    let prefix: String

    func run() async throws -> JobResult {
        var state = GoogleDriveListingCursor(session: job.session) ?? GoogleDriveListingCursor()
        if state.complete { return JobResult(bytes: 0, details: state.result) }
        if state.continuation != nil { context.logger.info("resuming the listing after the last recorded page", metadata: ["listed": "\(state.listed)"]) }
        let filter = ListingFilterReader.filter(of: job)
        let filterJSON = (try? JSONValue.parse(job.spec))?[ListingFilter.specKey]
        while true {
            let page = try await pages.page(after: state.continuation)
            let children = page.files.compactMap { child($0, state: &state, filter: filter, filterJSON: filterJSON) }
            state.continuation = page.nextPageToken
            state.pages += 1
            state.complete = page.nextPageToken == nil
            // A listing moves no bytes itself: its children carry the sizes.
            try await context.fanOut(children, bytesDone: 0, session: state.json)
            if state.complete {
                if state.skippedOwn > 0 {
                    context.logger.notice("Google Docs items skipped: give --option export=FORMAT to fetch them", metadata: ["skipped": "\(state.skippedOwn)"])
                }
                return JobResult(bytes: 0, details: state.result)
            }
        }
    }

    /// The child job of one listed item, or `nil` (skipped and counted).
    private func child(_ item: GoogleDriveFile, state: inout GoogleDriveListingCursor, filter: FileFilter?, filterJSON: JSONValue?) -> FanOutChild? {
        guard let relative = state.admit(item, prefix: prefix, logger: context.logger) else { return nil }
        if item.isFolder {
            guard let encoded = state.subfolder(details, relative: relative, filterJSON: filterJSON) else { return nil }
            return fanOutChild(item, destination: root + relative + "/", bytesTotal: nil, details: encoded)
        }
        var name = relative
        if item.isGoogleDocument {
            guard let format = details.export, format.mimeType(for: item.mimeType) != nil else {
                state.skippedOwn += 1
                return nil
            }
            name = prefix.isEmpty ? format.fileName(for: item.name) : prefix + "/" + format.fileName(for: item.name)
        }
        let modified = GoogleDriveTime.parse(item.modifiedTime) ?? .distantPast
        guard let target = state.fileTarget(name, size: item.size, modified: modified, root: root, filter: filter) else { return nil }
        var childDetails = GoogleDriveFetchDetails(
            root: root, export: details.export, entry: true, listedRevision: item.headRevisionId, listedMD5: item.md5Checksum,
            listedSize: item.size, listedMimeType: item.mimeType)
        childDetails.sha256 = nil
        return fanOutChild(item, destination: target, bytesTotal: item.size, details: (try? JSONValue(encoding: childDetails))?.objectValue ?? [:])
    }

    private func fanOutChild(_ item: GoogleDriveFile, destination: String, bytesTotal: Int64?, details: [String: JSONValue]) -> FanOutChild {
        FanOutChild(
            kind: .fetch, source: GoogleDriveLocation(account: account, target: .id(item.id)).text, destination: destination, account: account,
            idempotencyKey: job.jobID.uuidString.lowercased() + "/" + PartialDownload.hex(SHA256.hash(data: Array(item.id.utf8))),
            metadata: .object(["name": .string(item.name), "id": .string(item.id), "mime_type": .string(item.mimeType)]),
            bytesTotal: bytesTotal, details: details)
    }
}
