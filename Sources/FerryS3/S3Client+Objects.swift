import AsyncHTTPClient
import FerryHTTP
import NIOCore

/// Object calls: upload in one request, metadata, streamed download, listing, removal.
extension S3Client {
    /// `PutObject`: uploads `body` as `key` in one request (at most 5 GiB) and returns the new
    /// ETag, quotes included. `checksum` makes S3 verify the bytes (`Content-MD5`,
    /// `x-amz-checksum-sha256`, signed payload hash); a mismatch is `.badDigest`. `metadata` is stored as
    /// `x-amz-meta-NAME` headers (names lowercase letters, digits, `-` and `_`; values printable ASCII).
    public func putObject(
        bucket: String, key: String, body: S3Body, checksum: S3Checksum = .none, contentType: String? = nil,
        storageClass: String? = nil, metadata: [String: String] = [:]
    ) async throws(S3Error) -> String {
        var request = S3Request(operation: "PutObject", method: .PUT, bucket: bucket, key: key, notFound: .noSuchBucket)
        guard checksum.isWellFormed else { throw Self.malformedChecksum(request.operation) }
        if let contentType { request.headers.append(("Content-Type", contentType)) }
        if let storageClass { request.headers.append(("x-amz-storage-class", storageClass)) }
        try Self.addMetadata(metadata, to: &request)
        request.setObjectBody(body, checksum: checksum)
        let response = try await send(request)
        try await drain(response, request.operation)
        return try Self.etag(response, request.operation)
    }

    /// `HeadObject`: size, ETag and modification time of `key`. A missing object is `.noSuchKey`
    /// (a missing bucket too: a HEAD answer has no body to tell them apart).
    public func headObject(bucket: String, key: String) async throws(S3Error) -> S3ObjectInfo {
        let request = S3Request(operation: "HeadObject", method: .HEAD, bucket: bucket, key: key)
        let response = try await send(request)
        try await drain(response, request.operation)
        guard let length = response.headers.first(name: "Content-Length").flatMap({ Int64($0.trimmingSpaces) }), length >= 0 else {
            throw S3Error(code: .invalidResponse, operation: request.operation, httpStatus: Int(response.status.code),
                          message: "answer without a usable Content-Length")
        }
        return S3ObjectInfo(
            contentLength: length, etag: try Self.etag(response, request.operation),
            lastModified: response.headers.first(name: "Last-Modified"), contentType: response.headers.first(name: "Content-Type"),
            metadata: Self.userMetadata(response.headers))
    }

    /// The `x-amz-meta-NAME` headers, by lowercased NAME.
    static func userMetadata<Headers: Sequence>(_ headers: Headers) -> [String: String]
    where Headers.Element == (name: String, value: String) {
        var metadata = [String: String]()
        for (name, value) in headers {
            let lower = name.lowercased()
            if lower.hasPrefix("x-amz-meta-") { metadata[String(lower.dropFirst("x-amz-meta-".count))] = value }
        }
        return metadata
    }

    /// Adds `x-amz-meta-NAME` headers, refusing names and values a header cannot carry as they are.
    static func addMetadata(_ metadata: [String: String], to request: inout S3Request) throws(S3Error) {
        for (name, value) in metadata.sorted(by: { $0.key < $1.key }) {
            let nameOK = !name.isEmpty && name.utf8.allSatisfy {
                (97...122).contains($0) || (48...57).contains($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
            }
            guard nameOK, value.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else {
                throw S3Error(
                    code: .invalidArgument, operation: request.operation,
                    message: "metadata \(name) cannot be sent: names are lowercase letters, digits, - and _; values printable ASCII")
            }
            request.headers.append(("x-amz-meta-" + name, value))
        }
    }

    /// `GetObject`, with the body left on the wire for the caller to stream (see ``S3Download``).
    ///
    /// - Parameters:
    ///   - range: only these bytes; a 206 answer then has ``S3Download/contentRange``, a 200 means
    ///     the server sent the whole object. A range starting at or past the end is `.invalidRange`.
    ///   - ifMatch: only if the object still has this ETag (quoted, as S3 returns it); otherwise
    ///     `.preconditionFailed`. Use it when resuming, so the pieces come from one version.
    public func getObject(bucket: String, key: String, range: S3ByteRange? = nil, ifMatch: String? = nil) async throws(S3Error) -> S3Download {
        var request = S3Request(operation: "GetObject", method: .GET, bucket: bucket, key: key)
        if let range {
            guard range.isValid else {
                throw S3Error(code: .invalidArgument, operation: request.operation, message: "invalid range \(range.headerValue)")
            }
            request.headers.append(("Range", range.headerValue))
        }
        if let ifMatch { request.headers.append(("If-Match", ifMatch)) }
        let response = try await send(request)
        let status = Int(response.status.code)
        var contentRange: S3ContentRange?
        if status == 206 {
            guard let header = response.headers.first(name: "Content-Range"), let parsed = S3ContentRange(headerValue: header) else {
                throw S3Error(code: .invalidResponse, operation: request.operation, httpStatus: status, message: "206 answer without a usable Content-Range")
            }
            contentRange = parsed
        }
        return S3Download(
            status: status, etag: response.headers.first(name: "ETag"),
            contentLength: response.headers.first(name: "Content-Length").flatMap { Int64($0.trimmingSpaces) },
            contentRange: contentRange, lastModified: response.headers.first(name: "Last-Modified"),
            metadata: Self.userMetadata(response.headers), body: response.body)
    }

    /// `DeleteObject`. Deleting a key that does not exist succeeds, as on S3.
    public func deleteObject(bucket: String, key: String) async throws(S3Error) {
        let request = S3Request(operation: "DeleteObject", method: .DELETE, bucket: bucket, key: key, notFound: .noSuchBucket)
        let response = try await send(request)
        try await drain(response, request.operation)
    }

    /// `ListObjectsV2`: one page of keys under `prefix`, in key order (UTF-8 bytes).
    ///
    /// - Parameters:
    ///   - delimiter: roll keys up to their next `delimiter` into ``S3ObjectPage/commonPrefixes``.
    ///   - continuationToken: ``S3ObjectPage/nextContinuationToken`` of the previous page.
    ///   - maxKeys: at most this many entries (S3 caps it at 1,000).
    ///   - startAfter: begin after this key (for the first page; later ones follow `continuationToken`).
    public func listObjectsV2(
        bucket: String, prefix: String? = nil, delimiter: String? = nil, continuationToken: String? = nil, maxKeys: Int? = nil,
        startAfter: String? = nil
    ) async throws(S3Error) -> S3ObjectPage {
        try await listObjectsV2(
            bucket: bucket, prefix: prefix, delimiter: delimiter, continuationToken: continuationToken, maxKeys: maxKeys,
            startAfter: startAfter, operation: "ListObjectsV2")
    }

    func listObjectsV2(
        bucket: String, prefix: String? = nil, delimiter: String? = nil, continuationToken: String? = nil, maxKeys: Int? = nil,
        startAfter: String? = nil, operation: String
    ) async throws(S3Error) -> S3ObjectPage {
        var request = S3Request(operation: operation, method: .GET, bucket: bucket, notFound: .noSuchBucket)
        request.query = [("list-type", "2")]
        if let prefix { request.query.append(("prefix", prefix)) }
        if let delimiter { request.query.append(("delimiter", delimiter)) }
        if let startAfter { request.query.append(("start-after", startAfter)) }
        if let continuationToken { request.query.append(("continuation-token", continuationToken)) }
        if let maxKeys { request.query.append(("max-keys", String(maxKeys))) }
        let document = try await sendXML(request)
        try Self.expectRoot(document, "ListBucket", request.operation)

        var objects: [S3ObjectSummary] = []
        for entry in document.children("Contents") {
            guard let key = entry.text(of: "Key"), let size = entry.text(of: "Size").flatMap({ Int64($0.trimmingSpaces) }) else {
                throw S3Error(code: .invalidResponse, operation: request.operation, message: "listing entry without Key or Size")
            }
            objects.append(S3ObjectSummary(key: key, size: size, etag: entry.text(of: "ETag") ?? "", lastModified: entry.text(of: "LastModified")))
        }
        let isTruncated = document.text(of: "IsTruncated")?.trimmingSpaces == "true"
        let token = document.text(of: "NextContinuationToken").flatMap { $0.isEmpty ? nil : $0 }
        guard !isTruncated || token != nil else {
            throw S3Error(code: .invalidResponse, operation: request.operation, message: "truncated listing without NextContinuationToken")
        }
        return S3ObjectPage(
            objects: objects, commonPrefixes: document.children("CommonPrefixes").compactMap { $0.text(of: "Prefix") },
            isTruncated: isTruncated, nextContinuationToken: token)
    }

    /// The `ETag` header of a successful answer.
    static func etag(_ response: HTTPClientResponse, _ operation: String) throws(S3Error) -> String {
        guard let etag = response.headers.first(name: "ETag"), !etag.isEmpty else {
            throw S3Error(code: .invalidResponse, operation: operation, httpStatus: Int(response.status.code), message: "answer without an ETag")
        }
        return etag
    }

    /// Checks the root element: `<BaseResult>` as S3 names it, or `<BaseResponse>` as moto does
    /// for some calls (`ListPartsResponse`, `CompleteMultipartUploadResponse`).
    static func expectRoot(_ document: S3XMLElement, _ base: String, _ operation: String) throws(S3Error) {
        guard document.name == base + "Result" || document.name == base + "Response" else {
            throw S3Error(code: .invalidResponse, operation: operation, message: "unexpected XML document <\(S3Error.truncate(document.name))>")
        }
    }

    static func malformedChecksum(_ operation: String) -> S3Error {
        S3Error(code: .invalidArgument, operation: operation,
                message: "checksum must have a 16-byte MD5 and a 32-byte SHA-256, and a SHA-256 to send one")
    }
}
