import Crypto
import NIOCore

extension S3Request {
    /// An XML body held in memory: signed with its SHA-256, with `Content-MD5` (some calls,
    /// such as `DeleteObjects`, require it).
    mutating func setXMLBody(_ xml: String) {
        let buffer = ByteBuffer(string: xml)
        let checksum = S3Checksum.of(buffer)
        body = .bytes(buffer)
        payloadHash = checksum.payloadHash
        headers.append(("Content-Type", "application/xml"))
        if let md5 = checksum.contentMD5 { headers.append(("Content-MD5", md5)) }
    }

    /// A streamed or in-memory object body with its digests as headers.
    mutating func setObjectBody(_ body: S3Body, checksum: S3Checksum) {
        self.body = body.body
        payloadHash = checksum.payloadHash
        if let md5 = checksum.contentMD5 { headers.append(("Content-MD5", md5)) }
        if let sha256 = checksum.checksumSHA256 { headers.append(("x-amz-checksum-sha256", sha256)) }
        isUpload = true
    }
}
