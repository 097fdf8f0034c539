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
    /// The whole object, when it was read at open (a small listed object: one `GetObject` instead of a
    /// `HeadObject` and a `GetObject`).
    var prefetched: ByteBuffer? = nil
    /// The facts are a listing's, not looked up: the object's own metadata (the mtime an uploader stored) is
    /// unknown here. Only for copies the store makes itself, which keep the source's metadata as it is.
    var listedOnly = false

    /// Objects at most this big that a listing found are read whole at open.
    static let prefetchLimit: Int64 = 1 << 20

    /// A small object as a listing saw it (`etag`), read whole with `If-Match` on that ETag: its metadata (the
    /// modification time an uploader stored) comes with the bytes. An object changed since the listing is looked
    /// up afresh (``open(_:access:logger:)``).
    static func read(
        listed location: S3Location, etag: String, access: S3AccountAccess, logger: Logger
    ) async throws -> S3CopySource {
        let client = try await access.client(for: location.account, logger: logger)
        let download: S3Download
        do {
            download = try await client.getObject(bucket: location.bucket, key: location.key, ifMatch: etag)
        } catch {
            if error.code == .preconditionFailed { return try await open(location, access: access, logger: logger) }
            if error.code == .noSuchKey || error.code == .noSuchBucket {
                throw JobFailure.permanent("source_not_found", "\(location.text) does not exist")
            }
            throw error.jobFailure(doing: "reading \(location.text)")
        }
        guard download.status == 200, let length = download.contentLength, length >= 0, length <= prefetchLimit else {
            throw JobFailure.retryable("source_interrupted", "reading \(location.text): the answer did not carry the whole object")
        }
        let body = try await CopyRangeBody.collect(download.body, count: Int(length), what: location.text)
        let stored = download.metadata["mtime"].flatMap(Double.init).map { Date(timeIntervalSince1970: $0) }
        let version = download.etag ?? etag
        return S3CopySource(
            client: client, location: location,
            facts: CopySourceFacts(
                size: length, version: version, modified: stored ?? RemoteTimestamp.http(download.lastModified),
                md5: S3ObjectFetch.plainMD5(version)),
            prefetched: body)
    }

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
        if let prefetched {
            guard range.lowerBound >= 0, range.upperBound <= Int64(prefetched.readableBytes),
                let slice = prefetched.getSlice(at: prefetched.readerIndex + Int(range.lowerBound), length: range.count)
            else {
                throw JobFailure.permanent("source_bad_range", "reading \(location.text): \(range) is outside its \(prefetched.readableBytes) bytes")
            }
            return slice
        }
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
