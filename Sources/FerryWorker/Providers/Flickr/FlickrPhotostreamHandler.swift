import AsyncHTTPClient
import FerryCore
import FerryFlickr
import FerryProviders
import FerryStore
import Foundation

/// Lists a Flickr user's public photos and enqueues one photo fetch per photo: `ferry enqueue fetch
/// flickr:USER_ID --to DIR/`.
///
/// Each page of `flickr.people.getPublicPhotos` becomes one `fanOut`: its children (kind fetch, source
/// `flickr:USER_ID/photo/PHOTO_ID`, the photo's server, secret and size and the listing's account in the spec,
/// `DIR/<id>[_<size>].jpg`, title and owner as metadata) and the cursor of the next page are recorded in one
/// transaction, so a crash resumes at the next page and a page listed twice enqueues nothing new. Each child
/// then runs here too (``fetchPhoto(_:details:photo:context:)``): its URL is built from the account's photo base
/// as it is when the child runs, never stored. The API key is the account's sealed secret.
public struct FlickrPhotostreamHandler: JobHandler {
    let tokens: AccountTokenProvider
    let httpClient: HTTPClient
    /// Photos per listing page (Flickr's maximum is 500).
    let perPage: Int

    public init(tokens: AccountTokenProvider, httpClient: HTTPClient, perPage: Int = 500) {
        self.tokens = tokens
        self.httpClient = httpClient
        self.perPage = min(500, max(1, perPage))
    }

    public var name: String { "flickr-photostream" }


    public func run(_ job: ClaimedJob, context: JobContext) async throws -> JobResult {
        let details = try job.details(as: FlickrFetchDetails.self)
        let root = details.root
        guard root.hasPrefix("/") else {
            throw JobFailure.permanent("bad_spec", "the Flickr job has no root folder in its details")
        }
        if let photo = details.photo { return try await fetchPhoto(job, details: details, photo: photo, context: context) }
        let userID = String(job.source.dropFirst("flickr:".count))
        let size = details.sizeSuffix
        let limit = details.max
        let (account, apiKey, endpoints) = try await credentials(job.account)
        let client = FlickrClient(httpClient: httpClient, endpoints: endpoints, logger: context.logger)

        // The page size is fixed for the whole walk (recorded with the cursor): pages of another size would not
        // line up with the ones already listed.
        let session = job.session.flatMap { try? JSONValue.parse($0) }
        var page = Int(session?["page"]?.intValue ?? 1)
        var listed = session?["listed"]?.intValue ?? 0
        let pageSize = Int(session?["per_page"]?.intValue ?? Int64(limit.map { min(Int64(perPage), $0) } ?? Int64(perPage)))
        if page > 1 { context.logger.info("resuming Flickr listing", metadata: ["page": "\(page)", "listed": "\(listed)"]) }
        var total = Int(session?["total"]?.intValue ?? 0)
        var skipped = 0
        var unchanged = session?["unchanged"]?.intValue ?? 0

        while limit.map({ listed < $0 }) ?? true {
            try context.checkCancellation()
            let result = try await Self.listPage(client, userID: userID, page: page, perPage: pageSize, apiKey: apiKey)
            total = result.total
            let wanted = limit.map { Int(min(Int64(result.photos.count), $0 - listed)) } ?? result.photos.count
            var children = [FanOutChild]()
            for photo in result.photos.prefix(wanted) {
                guard let child = Self.child(photo, userID: userID, jobID: job.jobID, root: root, size: size, account: account) else {
                    skipped += 1
                    context.logger.warning("skipping a photo whose id cannot be a file name", metadata: ["page": "\(page)"])
                    continue
                }
                children.append(child)
            }
            // A photo already fetched into this folder is not fetched again: its file name carries Flickr's identity
            // (photo id and size), and fetches land under that name only once complete (written beside it first).
            let candidates = children
            let present = try await BlockingIO.run { candidates.map { Self.isPresent($0.destination) } }
            unchanged += Int64(present.filter { $0 }.count)
            children = zip(children, present).filter { !$0.1 }.map(\.0)
            listed += Int64(wanted)
            let finished = result.photos.isEmpty || page >= result.pages || limit.map { listed >= $0 } == true
            page += 1
            try await context.fanOut(
                children, bytesDone: 0,
                session: .object([
                    "page": .int(Int64(page)), "listed": .int(listed), "per_page": .int(Int64(pageSize)), "total": .int(Int64(total)),
                    "unchanged": .int(unchanged),
                ]))
            if finished { break }
        }
        context.logger.info("Flickr listing done", metadata: ["photos": "\(listed)", "pages": "\(page - 1)", "skipped": "\(skipped)", "unchanged": "\(unchanged)"])
        return JobResult(
            bytes: 0,
            details: .object([
                "photos": .int(listed), "pages": .int(Int64(page - 1)), "total": .int(Int64(total)), "skipped": .int(Int64(skipped)),
                "unchanged": .int(unchanged),
            ]))
    }

    /// A complete earlier fetch of the photo: a non-empty regular file at its destination.
    static func isPresent(_ path: String) -> Bool {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return false }
        return attributes[.type] as? FileAttributeType == .typeRegular && (attributes[.size] as? NSNumber)?.int64Value ?? 0 > 0
    }

    /// One listing page, with Flickr's errors turned into job failures.
    static func listPage(_ client: FlickrClient, userID: String, page: Int, perPage: Int, apiKey: String) async throws -> FlickrPhotoPage {
        do {
            return try await client.publicPhotos(userID: userID, page: page, perPage: perPage, apiKey: apiKey)
        } catch {
            throw error.jobFailure(doing: "listing page \(page) of flickr:\(userID)")
        }
    }

    /// The fetch of one photo, or `nil` when its id cannot be a file name inside `root` or its parts are not
    /// what Flickr writes in a photo URL (the child would fail).
    static func child(_ photo: FlickrPhotoInfo, userID: String, jobID: UUID, root: String, size: String?, account: String) -> FanOutChild? {
        let name = size.map { "\(photo.id)_\($0).jpg" } ?? "\(photo.id).jpg"
        let reference = FlickrPhotoReference(server: photo.server, secret: photo.secret, size: size)
        guard SafePath.component(photo.id) != nil, reference.isValid(userID: userID, photoID: photo.id),
            let destination = SafePath.join(root: root, relative: name), SafePath.isInside(destination, root: root)
        else { return nil }
        var metadata: [String: JSONValue] = [
            "title": .string(photo.title), "owner": .string(photo.owner), "flickr_id": .string(photo.id),
        ]
        if let ownerName = photo.ownerName { metadata["ownername"] = .string(ownerName) }
        if let uploaded = photo.dateUpload {
            metadata["posted"] = .string(ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(uploaded))))
        }
        // No account on the child job: photo downloads are not API calls, and the account's cap is for those.
        let details = FlickrFetchDetails(root: root, photo: reference, account: account)
        return FanOutChild(
            kind: .fetch, source: FlickrPhotoReference.source(userID: userID, photoID: photo.id), destination: destination,
            account: nil, idempotencyKey: "\(jobID.uuidString.lowercased())/flickr/\(photo.id)", metadata: .object(metadata),
            details: (try? JSONValue(encoding: details))?.objectValue ?? ["root": .string(root)])
    }

    /// The name, API key and hosts of `named` (or of the only Flickr account when none is named).
    func credentials(_ named: String?) async throws -> (account: String, apiKey: String, endpoints: FlickrEndpoints) {
        var account = named
        do {
            if account == nil {
                let names = try await tokens.accountNames(provider: "flickr")
                guard names.count == 1 else {
                    throw JobFailure.permanent(
                        "account_unusable",
                        names.isEmpty ? "no Flickr account; add one with ferry account add NAME --provider flickr --api-key-file FILE"
                            : "several Flickr accounts; name one with --account")
                }
                account = names[0]
            }
            let credentials = try await tokens.plainCredentials(for: account!)
            guard credentials.provider == "flickr", let apiKey = credentials.flickrAPIKey, !apiKey.isEmpty else {
                throw JobFailure.permanent("account_unusable", "account \(account!) is not a Flickr account with an API key")
            }
            return (account!, apiKey, credentials.flickrEndpoints)
        } catch let error as FerryStoreError where error.code == .credentials || error.code == .unknownAccount {
            throw JobFailure.permanent("account_unusable", error.description)
        } catch let error as FerryStoreError where error.code == .secretKeyMismatch {
            guard let account else { throw JobFailure.secretKeyMismatch(error.description) }
            throw await tokens.keyMismatchFailure(account: account, error)
        }
    }
}
