import FerryHTTP
import NIOCore

/// Multipart uploads: create, upload parts, list, complete, abort, and find unfinished ones.
extension S3Client {
    /// `CreateMultipartUpload`; returns the upload ID. With `sha256Checksums`, every part must be
    /// sent with a SHA-256 checksum (``S3Checksum/sendsSHA256Checksum``), which S3 then verifies
    /// and lists per part.
    public func createMultipartUpload(
        bucket: String, key: String, contentType: String? = nil, storageClass: String? = nil, sha256Checksums: Bool = false,
        metadata: [String: String] = [:]
    ) async throws(S3Error) -> String {
        var request = S3Request(operation: "CreateMultipartUpload", method: .POST, bucket: bucket, key: key, notFound: .noSuchBucket)
        request.query = [("uploads", "")]
        if let contentType { request.headers.append(("Content-Type", contentType)) }
        if let storageClass { request.headers.append(("x-amz-storage-class", storageClass)) }
        if sha256Checksums { request.headers.append(("x-amz-checksum-algorithm", "SHA256")) }
        try Self.addMetadata(metadata, to: &request)
        let document = try await sendXML(request)
        try Self.expectRoot(document, "InitiateMultipartUpload", request.operation)
        guard let uploadID = document.text(of: "UploadId"), !uploadID.isEmpty else {
            throw S3Error(code: .invalidResponse, operation: request.operation, message: "answer without an UploadId")
        }
        return uploadID
    }

    /// `UploadPart` number `partNumber` (1…10,000) of `uploadID`; returns the part to list in
    /// ``completeMultipartUpload(bucket:key:uploadID:parts:)``. Every part but the last must be at
    /// least 5 MiB (S3 tells only at completion, with `.entityTooSmall`).
    public func uploadPart(
        bucket: String, key: String, uploadID: String, partNumber: Int, body: S3Body, checksum: S3Checksum = .none
    ) async throws(S3Error) -> S3Part {
        var request = S3Request(operation: "UploadPart", method: .PUT, bucket: bucket, key: key, notFound: .noSuchUpload)
        guard (1...S3PartPlan.maxPartCount).contains(partNumber) else {
            throw S3Error(code: .invalidArgument, operation: request.operation, message: "part number \(partNumber) is not within 1…10000")
        }
        guard checksum.isWellFormed else { throw Self.malformedChecksum(request.operation) }
        request.query = [("partNumber", String(partNumber)), ("uploadId", uploadID)]
        request.setObjectBody(body, checksum: checksum)
        let response = try await send(request)
        try await drain(response, request.operation)
        return S3Part(
            partNumber: partNumber, etag: try Self.etag(response, request.operation), size: body.length,
            checksumSHA256: checksum.checksumSHA256)
    }

    /// `ListParts`, every page (following `NextPartNumberMarker`): the parts S3 holds for
    /// `uploadID`, by part number. An unknown, completed or aborted upload is `.noSuchUpload`.
    public func listParts(bucket: String, key: String, uploadID: String) async throws(S3Error) -> [S3Part] {
        var parts: [S3Part] = []
        var marker = 0
        while true {
            var request = S3Request(operation: "ListParts", method: .GET, bucket: bucket, key: key, notFound: .noSuchUpload)
            request.query = [("uploadId", uploadID), ("max-parts", "1000")]
            if marker > 0 { request.query.append(("part-number-marker", String(marker))) }
            let document = try await sendXML(request)
            try Self.expectRoot(document, "ListParts", request.operation)
            for entry in document.children("Part") {
                guard let number = entry.text(of: "PartNumber").flatMap({ Int($0.trimmingSpaces) }), let etag = entry.text(of: "ETag") else {
                    throw S3Error(code: .invalidResponse, operation: request.operation, message: "part without PartNumber or ETag")
                }
                parts.append(S3Part(
                    partNumber: number, etag: etag, size: entry.text(of: "Size").flatMap { Int64($0.trimmingSpaces) },
                    checksumSHA256: entry.text(of: "ChecksumSHA256")))
            }
            guard document.text(of: "IsTruncated")?.trimmingSpaces == "true" else { break }
            // A marker that does not move on would page forever.
            guard let next = document.text(of: "NextPartNumberMarker").flatMap({ Int($0.trimmingSpaces) }), next > marker else {
                throw S3Error(code: .invalidResponse, operation: request.operation, message: "truncated part list without a usable NextPartNumberMarker")
            }
            marker = next
        }
        return parts.sorted { $0.partNumber < $1.partNumber }
    }

    /// `CompleteMultipartUpload` from `parts` (sorted by part number here; each number once);
    /// returns the object's ETag (`"…-N"`, see ``S3MultipartETag``).
    ///
    /// S3 may answer 200 and report a failure in the body after a long wait; that is thrown as the
    /// error it names (`InvalidPart`, `EntityTooSmall`, `InternalError`, …).
    public func completeMultipartUpload(bucket: String, key: String, uploadID: String, parts: [S3Part]) async throws(S3Error) -> String {
        var request = S3Request(operation: "CompleteMultipartUpload", method: .POST, bucket: bucket, key: key, notFound: .noSuchUpload)
        let sorted = parts.sorted { $0.partNumber < $1.partNumber }
        guard !sorted.isEmpty, Set(sorted.map(\.partNumber)).count == sorted.count else {
            throw S3Error(code: .invalidArgument, operation: request.operation, message: "the part list is empty or names a part twice")
        }
        request.query = [("uploadId", uploadID)]
        var xml = "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
        for part in sorted {
            xml += "<Part><PartNumber>\(part.partNumber)</PartNumber><ETag>\(S3XMLWriter.escape(part.etag))</ETag>"
            if let checksum = part.checksumSHA256 { xml += "<ChecksumSHA256>\(S3XMLWriter.escape(checksum))</ChecksumSHA256>" }
            xml += "</Part>"
        }
        xml += "</CompleteMultipartUpload>"
        request.setXMLBody(xml)
        let document = try await sendXML(request)
        try Self.expectRoot(document, "CompleteMultipartUpload", request.operation)
        guard let etag = document.text(of: "ETag"), !etag.isEmpty else {
            throw S3Error(code: .invalidResponse, operation: request.operation, message: "answer without an ETag")
        }
        return etag
    }

    /// `AbortMultipartUpload`: S3 drops the parts. An unknown upload is `.noSuchUpload`.
    public func abortMultipartUpload(bucket: String, key: String, uploadID: String) async throws(S3Error) {
        var request = S3Request(operation: "AbortMultipartUpload", method: .DELETE, bucket: bucket, key: key, notFound: .noSuchUpload)
        request.query = [("uploadId", uploadID)]
        let response = try await send(request)
        try await drain(response, request.operation)
    }

    /// `ListMultipartUploads`: one page of unfinished uploads under `prefix` (to abort forgotten
    /// ones). Pass the page's ``S3MultipartUploadPage/nextKeyMarker`` and
    /// ``S3MultipartUploadPage/nextUploadIDMarker`` for the next one.
    public func listMultipartUploads(
        bucket: String, prefix: String? = nil, keyMarker: String? = nil, uploadIDMarker: String? = nil, maxUploads: Int? = nil
    ) async throws(S3Error) -> S3MultipartUploadPage {
        var request = S3Request(operation: "ListMultipartUploads", method: .GET, bucket: bucket, notFound: .noSuchBucket)
        request.query = [("uploads", "")]
        if let prefix { request.query.append(("prefix", prefix)) }
        if let keyMarker { request.query.append(("key-marker", keyMarker)) }
        if let uploadIDMarker { request.query.append(("upload-id-marker", uploadIDMarker)) }
        if let maxUploads { request.query.append(("max-uploads", String(maxUploads))) }
        let document = try await sendXML(request)
        try Self.expectRoot(document, "ListMultipartUploads", request.operation)
        var uploads: [S3MultipartUpload] = []
        for entry in document.children("Upload") {
            guard let key = entry.text(of: "Key"), let uploadID = entry.text(of: "UploadId") else {
                throw S3Error(code: .invalidResponse, operation: request.operation, message: "upload without Key or UploadId")
            }
            uploads.append(S3MultipartUpload(key: key, uploadID: uploadID, initiated: entry.text(of: "Initiated")))
        }
        func nonEmpty(_ name: String) -> String? { document.text(of: name).flatMap { $0.isEmpty ? nil : $0 } }
        return S3MultipartUploadPage(
            uploads: uploads, isTruncated: document.text(of: "IsTruncated")?.trimmingSpaces == "true",
            nextKeyMarker: nonEmpty("NextKeyMarker"), nextUploadIDMarker: nonEmpty("NextUploadIdMarker"))
    }
}
