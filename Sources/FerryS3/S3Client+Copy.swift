/// Server-side copies: the store copies the bytes itself, nothing passes through the caller.
extension S3Client {
    /// The largest object one `CopyObject` copies (bigger ones need `UploadPartCopy`).
    public static let maxCopyObjectSize: Int64 = 5 * 1024 * 1024 * 1024

    /// `CopyObject`: copies `sourceBucket/sourceKey` to `bucket/key` inside the store, only while the source's
    /// ETag is `ifMatch` (`x-amz-copy-source-if-match`; a changed source is `.preconditionFailed`). With `metadata`
    /// the copy gets it (and `contentType`) in place of the source's (`x-amz-metadata-directive: REPLACE`); with
    /// `nil` it keeps the source's. Returns the new object's ETag, quotes included. A 200 whose document is an
    /// `<Error>` (S3 may send one after a long copy) is an error.
    public func copyObject(
        sourceBucket: String, sourceKey: String, ifMatch: String, bucket: String, key: String, metadata: [String: String]?,
        contentType: String? = nil, storageClass: String? = nil
    ) async throws(S3Error) -> String {
        var request = S3Request(operation: "CopyObject", method: .PUT, bucket: bucket, key: key, notFound: .noSuchBucket)
        let source = "/" + S3URIEncoding.encode(sourceBucket, keepSlash: false) + "/" + S3URIEncoding.encode(sourceKey, keepSlash: true)
        request.headers.append(("x-amz-copy-source", source))
        request.headers.append(("x-amz-copy-source-if-match", ifMatch))
        if let metadata {
            request.headers.append(("x-amz-metadata-directive", "REPLACE"))
            if let contentType { request.headers.append(("Content-Type", contentType)) }
            try Self.addMetadata(metadata, to: &request)
        }
        if let storageClass { request.headers.append(("x-amz-storage-class", storageClass)) }
        let document = try await sendXML(request)
        try Self.expectRoot(document, "CopyObject", request.operation)
        guard let etag = document.text(of: "ETag"), !etag.isEmpty else {
            throw S3Error(code: .invalidResponse, operation: request.operation, message: "CopyObjectResult without an ETag")
        }
        return etag
    }
}
