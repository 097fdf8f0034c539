import NIOCore

/// Bucket-level calls: existence and credential checks, creation and removal.
extension S3Client {
    /// `HeadBucket`: succeeds when the bucket exists and the credentials may use it. A HEAD answer
    /// has no body, so failures are told apart by status only (403 `.accessDenied`, 404
    /// `.noSuchBucket`); ``checkAccess(bucket:)`` gives S3's precise reason.
    public func headBucket(bucket: String) async throws(S3Error) {
        let request = S3Request(operation: "HeadBucket", method: .HEAD, bucket: bucket, notFound: .noSuchBucket)
        let response = try await send(request)
        try await drain(response, request.operation)
    }

    /// A cheap check of bucket and credentials (`ListObjectsV2` with `max-keys=1`), for when an
    /// account is added: failures carry S3's own code (`InvalidAccessKeyId`,
    /// `SignatureDoesNotMatch`, `AccessDenied`, `NoSuchBucket`, …) and message.
    public func checkAccess(bucket: String) async throws(S3Error) {
        _ = try await listObjectsV2(bucket: bucket, maxKeys: 1, operation: "CheckAccess")
    }

    /// `ListBuckets`: the names of the buckets the keys may see. It needs no bucket, so it checks keys when an
    /// account is added: bad keys are `.invalidAccessKeyId` or `.signatureDoesNotMatch`, while `.accessDenied`
    /// means the keys are valid but may not list buckets (common for keys scoped to one bucket).
    public func listBuckets() async throws(S3Error) -> [String] {
        var request = S3Request(operation: "ListBuckets", method: .GET, bucket: "", notFound: .noSuchBucket)
        request.isServiceCall = true
        let document = try await sendXML(request)
        guard document.name == "ListAllMyBucketsResult" else {
            throw S3Error(code: .invalidResponse, operation: request.operation, message: "unexpected XML document <\(S3Error.truncate(document.name))>")
        }
        return document.child("Buckets")?.children("Bucket").compactMap { $0.text(of: "Name") } ?? []
    }

    /// `CreateBucket` in the configured region (used by tests and local setups).
    public func createBucket(bucket: String) async throws(S3Error) {
        var request = S3Request(operation: "CreateBucket", method: .PUT, bucket: bucket, notFound: .noSuchBucket)
        // us-east-1 is the default location and must not be named.
        if configuration.region != "us-east-1" {
            let xml = "<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><LocationConstraint>"
                + S3XMLWriter.escape(configuration.region) + "</LocationConstraint></CreateBucketConfiguration>"
            request.setXMLBody(xml)
        }
        let response = try await send(request)
        try await drain(response, request.operation)
    }

    /// `DeleteBucket` (the bucket must be empty).
    public func deleteBucket(bucket: String) async throws(S3Error) {
        let request = S3Request(operation: "DeleteBucket", method: .DELETE, bucket: bucket, notFound: .noSuchBucket)
        let response = try await send(request)
        try await drain(response, request.operation)
    }
}
