import AsyncHTTPClient
import Crypto
import FerryCore
import FerryProviders
import FerryS3
import FerryStore
import Foundation
import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

/// Uploads a local file to an S3-compatible store: `--to s3:ACCOUNT:bucket/key`.
///
/// Files up to one part go in a single `PutObject` with `Content-MD5`. Larger files use a multipart upload:
/// `CreateMultipartUpload`, then `UploadPart` per part (each with `Content-MD5`, each recorded as a progress
/// event carrying the upload id, part number and ETag), then `CompleteMultipartUpload` with the ordered list.
/// A new attempt, after kill -9 and on any machine, lists the parts the store holds (`ListParts`), keeps those
/// whose ETag is the MD5 of the same bytes of the file, and sends only the rest. The result is checked: size,
/// and the `md5-of-md5s-N` ETag. Cancelling, failing for good or a changed source abort the upload, so no parts
/// are left to bill. Up to four parts travel at once; bodies stream from disk in 256 KiB pieces, so memory stays
/// bounded whatever the file size.
struct S3UploadHandler: JobHandler {
    let access: S3AccountAccess
    /// Bytes per part (5 MiB … 5 GiB; grown for files that would need more than 10,000 parts). Files up to this
    /// size go in one `PutObject`.
    let partSize: Int64
    let pieceSize = 256 * 1024
    /// Parts of one upload sent at once.
    let partsInFlight = 4
    /// Parts sent at once by the whole process, whatever the number of uploads: bounds memory (each part in
    /// flight holds a few pieces) and connections. One large file still gets `partsInFlight`.
    let partSlots = AsyncSlots(limit: 8)

    var name: String { "s3-upload" }

    func run(_ job: ClaimedJob, context: JobContext) async throws -> JobResult {
        let location = try S3Location(job: job.destination)
        let options = try job.details(as: S3UploadDetails.self)
        let roots = context.localRoots
        // Off the cooperative pool: opening walks the path a component at a time, each an openat that may wait on disk.
        let (expected, source) = try await BlockingIO.run { try SourceExpectation.open(job, roots: roots) }
        let client = try await access.client(for: location.account, logger: context.logger)
        let mtime = Self.mtimeText(expected.modifiedNanoseconds)
        // A PUT replaces the object whole: only the same content (if_changed) or the policy stops it.
        if ExistingTarget.looks(job, ifChanged: options.ifChanged == true), let info = try await Self.head(location, client: client) {
            if ExistingTarget.policy(of: job) == .ignore {
                return ExistingTarget.leftAlone(["size": .int(info.contentLength), "etag": .string(info.etag)], logger: context.logger)
            }
            if let present = try await Self.present(info, expected, mtime, source: source) {
                context.logger.info("the object holds the same content already; not uploaded again")
                return .unchanged(present)
            }
            if ExistingTarget.policy(of: job) == .immutable { throw ExistingTarget.immutableConflict(job.destination) }
        } else if job.attempt > 1, let info = try await Self.head(location, client: client),
            let present = try await Self.present(info, expected, mtime, source: source)
        {
            // A re-run: an earlier attempt may have stored the object and lost its outcome (a lapsed lease, a kill).
            context.logger.info("an earlier attempt stored this content already (its outcome was not recorded); not uploaded again")
            return .unchanged(present)
        }
        let upload = S3Upload(
            handler: self, job: job, context: context, client: client, source: .file(source), size: expected.size,
            bucket: location.bucket, key: location.key, options: options,
            metadata: Self.userMetadata(job.metadata).merging(["mtime": mtime]) { _, ours in ours })
        let etag: String
        let recorded = S3UploadCursor(session: job.session, key: location.key)
        let plan = try Self.plan(size: expected.size, preferred: recorded?.partSize ?? partSize)
        if plan.isSinglePut {
            etag = try await upload.single()
        } else {
            etag = try await upload.multipart(plan: plan, recorded: recorded) {
                try expected.check(try source.status(), path: job.source, when: "during the upload")
            }
        }
        try expected.check(try source.status(), path: job.source, when: "during the upload")
        return JobResult(
            bytes: expected.size,
            details: .object(["etag": .string(etag), "bucket": .string(location.bucket), "key": .string(location.key)]))
    }

    /// The source's modification time as `x-amz-meta-mtime` carries it: seconds since 1970 with nanoseconds, as
    /// rclone writes it, so either tool can tell an unchanged file by it.
    static func mtimeText(_ nanoseconds: Int64) -> String {
        let fraction = String(nanoseconds % 1_000_000_000)
        return "\(nanoseconds / 1_000_000_000)." + String(repeating: "0", count: 9 - fraction.count) + fraction
    }

    /// What shows the object `info` already holds the source's content, or `nil` (another content): the same size
    /// and either the MD5 of a plain ETag or the same stored modification time (within 1 ms, for objects rclone
    /// wrote).
    static func present(
        _ info: S3ObjectInfo, _ expected: SourceExpectation, _ mtime: String, source: OwnedFile
    ) async throws -> [String: JSONValue]? {
        guard info.contentLength == expected.size else { return nil }
        if let stored = info.metadata["mtime"].flatMap(Double.init), let ours = Double(mtime), abs(stored - ours) < 0.001 {
            return ["size": .int(expected.size), "etag": .string(info.etag), "mtime": .string(mtime)]
        }
        guard let md5 = S3ObjectFetch.plainMD5(info.etag) else { return nil }
        let size = expected.size
        guard try await BlockingIO.run({ try LocalContentHash.md5(of: source, size: size) }) == md5 else { return nil }
        return ["size": .int(expected.size), "etag": .string(info.etag)]
    }

    /// The object at `location`, or `nil` when there is none (no object, or no bucket).
    static func head(_ location: S3Location, client: S3Client) async throws -> S3ObjectInfo? {
        do {
            return try await client.headObject(bucket: location.bucket, key: location.key)
        } catch {
            if error.code == .noSuchKey || error.code == .noSuchBucket { return nil }
            throw error.jobFailure(doing: "checking \(location.key)")
        }
    }

    /// The job's metadata as the object's user metadata (`x-amz-meta-NAME`): each string, number or true/false
    /// whose name is letters, digits, `-` and `_` (lowercased) and whose text is printable ASCII; the rest is left
    /// out (a header cannot carry it as is), and so is anything past S3's 2 KB of user metadata.
    static func userMetadata(_ text: String?) -> [String: String] {
        guard let text, let object = (try? JSONValue.parse(text))?.objectValue else { return [:] }
        var out = [String: String]()
        var bytes = 0
        for (name, value) in object.sorted(by: { $0.key < $1.key }) {
            let key = name.lowercased()
            let text: String
            switch value {
            case .string(let string): text = string
            case .int(let number): text = String(number)
            case .double(let number): text = String(number)
            case .bool(let flag): text = flag ? "true" : "false"
            default: continue
            }
            guard key != "mtime", !key.isEmpty,
                key.utf8.allSatisfy({ (97...122).contains($0) || (48...57).contains($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }),
                text.utf8.allSatisfy({ (0x20...0x7E).contains($0) }), bytes + key.utf8.count + text.utf8.count <= 1800
            else { continue }
            bytes += key.utf8.count + text.utf8.count
            out[key] = text
        }
        return out
    }

    static func plan(size: Int64, preferred: Int64) throws -> S3PartPlan {
        do {
            return try S3PartPlan(fileSize: size, preferredPartSize: preferred)
        } catch {
            throw JobFailure.permanent("too_large", error.description)
        }
    }
}
