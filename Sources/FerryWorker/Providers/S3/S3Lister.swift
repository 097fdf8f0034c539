import FerryCore
import FerryProviders
import FerryS3
import Logging
import NIOCore

/// S3's listing capability: `ListObjectsV2` of the key prefix (1,000 keys a page, with the continuation token S3
/// gives; one level with the `/` delimiter, whose common prefixes are the folders), as the prefix fan-out lists.
/// A plain (single-part) ETag is the object's MD5; keys ending in `/` are folder markers, not files.
struct S3Lister: RemoteLister {
    let access: S3AccountAccess

    /// The location of the prefix `remote` names: a key without a trailing `/` is taken as a folder.
    static func prefix(_ remote: String) throws -> S3Location {
        var location = try S3Location(remote, field: "remote", line: nil)
        if !location.key.isEmpty && !location.key.hasSuffix("/") { location.key += "/" }
        return location
    }

    func list(_ remote: String, options: RemoteListOptions, logger: Logger, page: ([RemoteEntry]) async throws -> Void) async throws {
        let location = try Self.prefix(remote)
        let client = try await access.client(for: location.account, logger: logger)
        var token: String?
        while true {
            let listed: S3ObjectPage
            do {
                listed = try await client.listObjectsV2(
                    bucket: location.bucket, prefix: location.key.isEmpty ? nil : location.key,
                    delimiter: options.recursive ? nil : "/", continuationToken: token, maxKeys: 1000)
            } catch where error.code == .noSuchBucket {
                throw RemoteListingError(.notFound, "the bucket \(location.bucket) does not exist", fix: "check the bucket's name (and the account's region and endpoint)")
            } catch {
                throw error.jobFailure(doing: "listing \(location.text)")
            }
            var entries = listed.commonPrefixes.compactMap { prefix -> RemoteEntry? in
                let relative = String(prefix.dropFirst(location.key.count).dropLast())
                guard prefix.hasPrefix(location.key), !relative.isEmpty else { return nil }
                return RemoteEntry(
                    path: relative, isFolder: true, size: nil, modified: nil,
                    reference: S3Location(account: location.account, bucket: location.bucket, key: prefix).text)
            }
            for object in listed.objects {
                let relative = String(object.key.dropFirst(location.key.count))
                guard object.key.hasPrefix(location.key), !relative.isEmpty, !relative.hasSuffix("/") else { continue }
                entries.append(RemoteEntry(
                    path: relative, isFolder: false, size: object.size, modified: RemoteTimestamp.iso8601(object.lastModified),
                    digests: S3ObjectFetch.plainMD5(object.etag).map { [ContentDigest(kind: .md5, value: $0)] } ?? [],
                    reference: S3Location(account: location.account, bucket: location.bucket, key: object.key).text, version: object.etag))
            }
            try await page(entries)
            guard listed.isTruncated, let next = listed.nextContinuationToken else { return }
            token = next
        }
    }

    func read(_ entry: RemoteEntry, logger: Logger, into body: (ByteBuffer) async throws -> Void) async throws {
        let location = try S3Location(entry.reference, field: "remote", line: nil)
        let client = try await access.client(for: location.account, logger: logger)
        let download: S3Download
        do {
            download = try await client.getObject(bucket: location.bucket, key: location.key)
        } catch {
            throw error.jobFailure(doing: "reading \(location.text)")
        }
        for try await piece in download.body { try await body(piece) }
    }
}
