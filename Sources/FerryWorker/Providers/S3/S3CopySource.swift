import FerryCore
import FerryProviders
import FerryS3
import FerryStore
import Foundation
import Logging
import NIOCore

/// An S3 object a copy reads: ranged `GetObject`s, each with `If-Match` on the ETag the attempt began with.
struct S3CopySource: CopySource {
    let client: S3Client
    let location: S3Location
    let facts: CopySourceFacts

    /// Looks the object up (`HeadObject`): a missing object or bucket fails the job for good.
    static func open(_ location: S3Location, access: S3AccountAccess, logger: Logger) async throws -> S3CopySource {
        let client = try await access.client(for: location.account, logger: logger)
        let info: S3ObjectInfo
        do {
            info = try await client.headObject(bucket: location.bucket, key: location.key)
        } catch {
            if error.code == .noSuchKey || error.code == .noSuchBucket {
                throw JobFailure.permanent("source_not_found", "\(location.text) does not exist")
            }
            throw error.jobFailure(doing: "looking up \(location.text)")
        }
        let stored = info.metadata["mtime"].flatMap(Double.init).map { Date(timeIntervalSince1970: $0) }
        return S3CopySource(
            client: client, location: location,
            facts: CopySourceFacts(
                size: info.contentLength, version: info.etag, modified: stored ?? RemoteTimestamp.http(info.lastModified),
                md5: S3ObjectFetch.plainMD5(info.etag)))
    }

    func read(_ range: Range<Int64>, context: JobContext) async throws -> ByteBuffer {
        guard !range.isEmpty else { return ByteBuffer() }
        let download: S3Download
        do {
            download = try await client.getObject(
                bucket: location.bucket, key: location.key, range: .bytes(range.lowerBound...(range.upperBound - 1)), ifMatch: facts.version)
        } catch {
            if error.code == .preconditionFailed || error.code == .noSuchKey {
                throw JobFailure.retryable("source_changed", "\(location.text) changed or went away during the copy; the next attempt copies its current version")
            }
            throw error.jobFailure(doing: "reading \(location.text)")
        }
        return try await CopyRangeBody.collect(download.body, count: range.count, what: location.text)
    }
}
