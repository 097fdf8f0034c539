import Crypto
import FerryCore
import FerryProviders
import FerryS3
import FerryStore
import Foundation

/// One attempt at listing a key prefix and enqueuing a child fetch per object.
///
/// Each page's children and the continuation token after that page are committed together, so a crashed
/// listing resumes at the next page, and children are keyed by parent and object key, so a page listed twice
/// enqueues nothing twice.
struct S3PrefixFanOut: Sendable {
    let job: ClaimedJob
    let context: JobContext
    let client: S3Client
    let details: S3FetchDetails
    let location: S3Location
    /// Local folder the listed keys are mirrored into.
    let root: String
    /// A prefix copy: each object becomes a child copy to this target instead of a fetch.
    var copy: CopyTarget? = nil

    func run() async throws -> JobResult {
        var state = S3ListingCursor(session: job.session) ?? S3ListingCursor()
        if state.complete { return JobResult(bytes: 0, details: state.result) }
        if state.token != nil {
            context.logger.info("resuming the listing after the last recorded page", metadata: ["files": "\(state.files)"])
        }
        while true {
            try context.checkCancellation()
            let page: S3ObjectPage
            do {
                page = try await client.listObjectsV2(
                    bucket: location.bucket, prefix: location.key.isEmpty ? nil : location.key,
                    delimiter: details.recursive == true ? nil : "/", continuationToken: state.token, maxKeys: details.pageSize)
            } catch {
                throw error.jobFailure(doing: "listing \(location.text)")
            }
            var children = self.children(of: page, counting: &state)
            if let copy { children = await copy.hinted(children, logger: context.logger) }
            state.prefixesSkipped += Int64(page.commonPrefixes.count)
            state.token = page.nextContinuationToken
            state.pages += 1
            state.complete = !page.isTruncated || page.nextContinuationToken == nil
            // A listing moves no bytes itself: its children carry the sizes.
            try await context.fanOut(children, bytesDone: 0, session: state.json)
            if state.complete { return JobResult(bytes: 0, details: state.result) }
        }
    }

    func children(of page: S3ObjectPage, counting state: inout S3ListingCursor) -> [FanOutChild] {
        var children = [FanOutChild]()
        children.reserveCapacity(page.objects.count)
        let filter = ListingFilterReader.filter(of: job)
        for object in page.objects {
            let relative = String(object.key.dropFirst(location.key.count))
            if let copy {
                guard !relative.isEmpty, !relative.hasSuffix("/") else {
                    state.skipped += 1
                    continue
                }
                if let filter, case .skip = filter.verdict(
                    path: relative, size: object.size, modified: RemoteTimestamp.iso8601(object.lastModified) ?? .distantPast)
                {
                    continue
                }
                guard let child = copy.child(
                    relative: relative, source: S3Location(account: location.account, bucket: location.bucket, key: object.key).text,
                    listed: CopySourceDetails(
                        provider: "s3", account: location.account, size: object.size, version: object.etag, modified: object.lastModified))
                else {
                    state.skipped += 1
                    context.logger.warning("skipping a listed object the destination cannot name", metadata: ["key": "\(object.key.debugDescription)"])
                    continue
                }
                state.files += 1
                children.append(child)
                continue
            }
            // Keys ending in / are folder markers that consoles create; they hold no file.
            guard !relative.isEmpty, !relative.hasSuffix("/"), let target = SafePath.join(root: root, relative: relative) else {
                state.skipped += 1
                continue
            }
            if let filter, case .skip = filter.verdict(
                path: relative, size: object.size, modified: RemoteTimestamp.iso8601(object.lastModified) ?? .distantPast)
            {
                continue
            }
            state.files += 1
            let child = S3FetchDetails(
                root: root, entry: true, listedETag: object.etag, listedSize: object.size, listedModified: object.lastModified)
            children.append(FanOutChild(
                kind: .fetch, source: S3Location(account: location.account, bucket: location.bucket, key: object.key).text,
                destination: target, account: location.account,
                idempotencyKey: job.jobID.uuidString.lowercased() + "/" + PartialDownload.hex(SHA256.hash(data: Array(object.key.utf8))),
                metadata: .object([
                    "key": .string(object.key), "etag": .string(object.etag),
                    "last_modified": object.lastModified.map(JSONValue.string) ?? .null,
                ]),
                bytesTotal: object.size, details: (try? JSONValue(encoding: child))?.objectValue ?? [:]))
        }
        return children
    }
}
