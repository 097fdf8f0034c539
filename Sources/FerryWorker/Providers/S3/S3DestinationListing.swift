import FerryProviders
import FerryS3
import Logging

/// Which of a folder copy's destination keys an S3 bucket does not hold, found by listing the range of keys a
/// page of children spans instead of one `HeadObject` per child: a first copy of many small files saves a
/// request per file, at the price of about one listing request per page of 1,000.
///
/// Keys come back in UTF-8 byte order, so one walk from just before the smallest key to the largest covers a page.
/// The walk is bounded: a range where the bucket holds far more than the page's keys is listed only in part, and
/// keys past what was listed get no answer (their children look, as before).
struct S3DestinationListing: CopyDestinationIndex {
    let client: S3Client
    let bucket: String
    /// The destination folder's key prefix (every child's key starts with it).
    let prefix: String
    /// Listing requests per page of children at most.
    var maxRequests = 4
    /// Keys per listing request (S3's most).
    var pageSize = 1000

    /// The keys among `keys` the bucket was seen not to hold. Never throws: a listing that fails (a key pair
    /// allowed to write but not to list, say) answers nothing, and each child looks for itself.
    func absent(among keys: [String], logger: Logger) async -> Set<String> {
        let wanted = keys.filter { $0.hasPrefix(prefix) }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        guard let first = wanted.first, let last = wanted.last else { return [] }
        var held = Set<String>()
        // Listed through this key (inclusive); nil: nothing yet. `.some(nil)`: through the end of the prefix.
        var through: String??
        // Just before the first key: its parent string sorts before it and any key between them is only read past.
        var startAfter: String? = first.count > prefix.count ? String(first.dropLast()) : nil
        var token: String?
        for _ in 0..<maxRequests {
            let page: S3ObjectPage
            do {
                page = try await client.listObjectsV2(
                    bucket: bucket, prefix: prefix.isEmpty ? nil : prefix, continuationToken: token, maxKeys: pageSize,
                    startAfter: token == nil ? startAfter : nil)
            } catch {
                logger.notice("the destination could not be listed; each copy looks for itself", metadata: ["error": "\(error)"])
                return []
            }
            for object in page.objects { held.insert(object.key) }
            guard page.isTruncated, let next = page.nextContinuationToken else {
                through = .some(nil)
                break
            }
            guard let end = page.objects.last?.key else { break }
            through = .some(end)
            if !end.utf8.lexicographicallyPrecedes(last.utf8) { break }
            token = next
            startAfter = nil
        }
        guard let through else { return [] }
        return Set(wanted.filter { key in
            guard !held.contains(key) else { return false }
            guard let end = through else { return true }
            return !end.utf8.lexicographicallyPrecedes(key.utf8)
        })
    }

    func absent(destinations: [String], logger: Logger) async -> Set<String> {
        var byKey = [String: String]()
        for text in destinations {
            if let key = try? S3Location(text, field: "to", line: nil).key { byKey[key] = text }
        }
        let keys = await absent(among: Array(byKey.keys), logger: logger)
        return Set(keys.compactMap { byKey[$0] })
    }
}
