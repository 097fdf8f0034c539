import AsyncHTTPClient
import FerryCore
import FerryInstagram
import FerryProviders
import FerryStore
import Foundation

/// Lists an Instagram account's feed and enqueues one fetch per file: `ferry enqueue fetch instagram:ACCOUNT
/// --to DIR/`.
///
/// Each page of `/me/media` becomes one `fanOut`: its children (an image's or a video's file, each child of an
/// album, optionally a video's cover; source `instagram:ACCOUNT/media/ID`, the signed link in the spec, the post's
/// username, time, caption, likes, comments and permalink as metadata) and the page's `after` cursor are recorded
/// in one transaction, so a crash resumes at the next page and a page listed twice enqueues nothing new. Files
/// already complete in the folder (from an earlier run) are not enqueued again, so a scheduled fetch takes only
/// new posts. Each child then runs here too (``fetchMedia(_:details:media:context:)``).
public struct InstagramFeedHandler: JobHandler {
    let tokens: AccountTokenProvider
    let httpClient: HTTPClient
    /// Posts per listing page (Instagram's maximum is 100).
    let perPage: Int

    public init(tokens: AccountTokenProvider, httpClient: HTTPClient, perPage: Int = 50) {
        self.tokens = tokens
        self.httpClient = httpClient
        self.perPage = min(100, max(1, perPage))
    }

    public var name: String { "instagram-feed" }

    public func run(_ job: ClaimedJob, context: JobContext) async throws -> JobResult {
        let details = try job.details(as: InstagramFetchDetails.self)
        guard details.root.hasPrefix("/") else {
            throw JobFailure.permanent("bad_spec", "the Instagram job has no root folder in its details")
        }
        if let media = details.media { return try await fetchMedia(job, details: details, media: media, context: context) }
        guard let account = job.account, job.source == "instagram:" + account else {
            throw JobFailure.permanent("bad_spec", "an Instagram feed job names its account as instagram:ACCOUNT")
        }
        let caller = InstagramCaller(account: account, tokens: tokens, logger: context.logger)
        let session = job.session.flatMap { try? JSONValue.parse($0) }
        var walk = InstagramFeedWalk(session: session)
        if walk.finished { return walk.result }
        if walk.pages > 0 { context.logger.info("resuming Instagram listing", metadata: ["pages": "\(walk.pages)", "posts": "\(walk.posts)"]) }

        while !walk.finished {
            try context.checkCancellation()
            let cursor = walk.after
            let page = try await caller.job("listing page \(walk.pages + 1) of \(job.source)") { client, token in
                try await client.media(token: token, after: cursor, limit: perPage)
            }
            let wanted = details.max.map { Int(max(0, min(Int64(page.items.count), $0 - walk.posts))) } ?? page.items.count
            var children = [FanOutChild]()
            for post in page.items.prefix(wanted) {
                let files = try await files(of: post, caller: caller, thumbnails: details.thumbnails ?? false)
                let made = files.compactMap { Self.child($0, account: account, jobID: job.jobID, root: details.root) }
                walk.skipped += files.count - made.count
                children += made
            }
            walk.skipped += page.malformed
            // A file already fetched into this folder is not fetched again: its name carries the item's identity,
            // and fetches land under that name only once complete (written beside it first).
            let candidates = children
            let present = try await BlockingIO.run { candidates.map { Self.isPresent($0.destination) } }
            walk.unchanged += Int64(present.filter { $0 }.count)
            children = zip(children, present).filter { !$0.1 }.map(\.0)
            walk.advance(listed: wanted, after: page.after, limit: details.max)
            try await context.fanOut(children, bytesDone: 0, session: walk.session)
        }
        if walk.skipped > 0 { context.logger.warning("skipped feed items whose ids cannot be file names", metadata: ["skipped": "\(walk.skipped)"]) }
        context.logger.info("Instagram listing done", metadata: ["posts": "\(walk.posts)", "pages": "\(walk.pages)", "unchanged": "\(walk.unchanged)"])
        return walk.result
    }

    /// The files of one post: its own, or each child's when it is an album (read with one more call).
    func files(of post: InstagramMedia, caller: InstagramCaller, thumbnails: Bool) async throws -> [InstagramFeedFile] {
        guard post.isAlbum else { return InstagramFeedFile.files(of: post, in: nil, thumbnails: thumbnails) }
        guard InstagramMediaReference.isValidID(post.id) else { return [] }
        let id = post.id
        let items = try await caller.job("listing album \(id)") { client, token in try await client.children(of: id, token: token) }
        return items.flatMap { InstagramFeedFile.files(of: $0, in: post, thumbnails: thumbnails) }
    }

    /// A complete earlier fetch of the file: a non-empty regular file at its destination.
    static func isPresent(_ path: String) -> Bool {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return false }
        return attributes[.type] as? FileAttributeType == .typeRegular && (attributes[.size] as? NSNumber)?.int64Value ?? 0 > 0
    }

    /// The fetch of one file, or `nil` when its ids cannot make a file name inside `root` or it has no link.
    static func child(_ file: InstagramFeedFile, account: String, jobID: UUID, root: String) -> FanOutChild? {
        guard let name = file.fileName, let url = file.url, SafePath.component(name) != nil,
            let destination = SafePath.join(root: root, relative: name), SafePath.isInside(destination, root: root)
        else { return nil }
        let reference = InstagramMediaReference(id: file.item.id, url: url, thumbnail: file.thumbnail)
        let details = InstagramFetchDetails(root: root, media: reference, account: account)
        // No account on the child job: CDN downloads are not API calls, and the account's cap is for those.
        return FanOutChild(
            kind: .fetch, source: InstagramMediaReference.source(account: account, id: file.item.id, thumbnail: file.thumbnail),
            destination: destination, account: nil, idempotencyKey: "\(jobID.uuidString.lowercased())/instagram/\(name)",
            metadata: .object(file.metadata), details: (try? JSONValue(encoding: details))?.objectValue ?? ["root": .string(root)])
    }
}
