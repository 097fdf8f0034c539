import FerryCore
import FerryInstagram
import FerryProviders
import FerryStore

extension InstagramFeedHandler {
    /// Fetches one file a listing found (a child: `instagram:ACCOUNT/media/ID`, ``InstagramMediaReference`` in its
    /// spec) from the signed link the listing saw. Those links expire: when the CDN refuses it (403, 404 or 410),
    /// the item is read again (`GET /{id}`) and its fresh link fetched instead of failing the job.
    func fetchMedia(_ job: ClaimedJob, details: InstagramFetchDetails, media: InstagramMediaReference, context: JobContext) async throws -> JobResult {
        guard let account = details.account, InstagramMediaReference.isValidID(media.id),
            job.source == InstagramMediaReference.source(account: account, id: media.id, thumbnail: media.thumbnail)
        else {
            throw JobFailure.permanent("bad_spec", "the Instagram file job's source or details are not an Instagram item (instagram:ACCOUNT/media/ID)")
        }
        let fetcher = HTTPFetchHandler(httpClient: httpClient)
        do {
            return try await fetcher.download(job, url: media.url, root: details.root, sha256: nil, context: context)
        } catch let failure as JobFailure where Self.expiredLinkCodes.contains(failure.code) {
            context.logger.info("the listed link was refused; asking Instagram for a fresh one", metadata: ["instagram_id": "\(media.id)", "code": "\(failure.code)"])
            let caller = InstagramCaller(account: account, tokens: tokens, logger: context.logger)
            let id = media.id
            let item = try await caller.job("reading item \(id) again") { client, token in try await client.item(id, token: token) }
            guard let url = media.thumbnail ? item.thumbnailURL : item.mediaURL else {
                throw JobFailure.permanent("instagram_media_gone", "item \(id) has no \(media.thumbnail ? "thumbnail" : "media") link any more")
            }
            return try await fetcher.download(job, url: url, root: details.root, sha256: nil, context: context)
        }
    }

    /// What the CDN answers for a link whose signature expired (HTTP 403 and others turned into these codes).
    static let expiredLinkCodes: Set<String> = ["http_status", "http_gone", "http_not_found"]
}
