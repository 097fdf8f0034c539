/// One uploaded part of a multipart upload: what `UploadPart` returns, what `ListParts` lists,
/// and what `CompleteMultipartUpload` takes.
public struct S3Part: Sendable, Hashable {
    /// 1 to 10,000.
    public var partNumber: Int
    /// The part's ETag, quotes included (the part's MD5 on AWS without SSE-KMS).
    public var etag: String
    /// Size in bytes (known from `ListParts`, or the length that was sent).
    public var size: Int64?
    /// Base64 SHA-256 of the part, when the upload uses SHA-256 checksums.
    public var checksumSHA256: String?

    public init(partNumber: Int, etag: String, size: Int64? = nil, checksumSHA256: String? = nil) {
        self.partNumber = partNumber
        self.etag = etag
        self.size = size
        self.checksumSHA256 = checksumSHA256
    }
}
