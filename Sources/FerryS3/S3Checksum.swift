import Crypto
import NIOCore

/// Digests of a request body that S3 checks on arrival.
///
/// `md5` is sent as `Content-MD5`. `sha256` is both the signed payload hash
/// (`x-amz-content-sha256`) and, when ``sendsSHA256Checksum`` is set, `x-amz-checksum-sha256`; for
/// multipart parts that needs an upload created with `sha256Checksums: true`. Without any digest
/// the body is sent as `UNSIGNED-PAYLOAD` (the caller can still compare the returned ETag, which is
/// the body's MD5 for plain uploads, with an MD5 computed while streaming).
public struct S3Checksum: Sendable, Hashable {
    /// MD5 of the body (16 bytes).
    public var md5: [UInt8]?
    /// SHA-256 of the body (32 bytes).
    public var sha256: [UInt8]?
    /// Whether `sha256` is also sent as `x-amz-checksum-sha256` (stored with the object and
    /// returned by `ListParts`), not only as the signed payload hash.
    public var sendsSHA256Checksum: Bool

    public init(md5: [UInt8]? = nil, sha256: [UInt8]? = nil, sendsSHA256Checksum: Bool = false) {
        self.md5 = md5
        self.sha256 = sha256
        self.sendsSHA256Checksum = sendsSHA256Checksum
    }

    /// No digests: `UNSIGNED-PAYLOAD`, no checksum headers.
    public static let none = S3Checksum()

    /// MD5 and SHA-256 of a body held in memory.
    public static func of(_ buffer: ByteBuffer, sendsSHA256Checksum: Bool = false) -> S3Checksum {
        var md5 = Insecure.MD5()
        var sha256 = SHA256()
        buffer.withUnsafeReadableBytes { bytes in
            md5.update(bufferPointer: bytes)
            sha256.update(bufferPointer: bytes)
        }
        return S3Checksum(md5: Array(md5.finalize()), sha256: Array(sha256.finalize()), sendsSHA256Checksum: sendsSHA256Checksum)
    }

    /// `Content-MD5` value (base64).
    var contentMD5: String? { md5.map { Base64.encode($0) } }
    /// `x-amz-checksum-sha256` value (base64), when it is to be sent.
    var checksumSHA256: String? { sendsSHA256Checksum ? sha256.map { Base64.encode($0) } : nil }
    /// `x-amz-content-sha256` value.
    var payloadHash: String { sha256.map { Hex.encode($0) } ?? SigV4Signer.unsignedPayload }

    var isWellFormed: Bool {
        (md5 == nil || md5?.count == 16) && (sha256 == nil || sha256?.count == 32) && (!sendsSHA256Checksum || sha256 != nil)
    }
}
