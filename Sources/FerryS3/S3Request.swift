import AsyncHTTPClient
import NIOHTTP1

/// One S3 call before signing: operation name (for logs and errors), target, and content.
struct S3Request {
    var operation: String
    var method: HTTPMethod
    var bucket: String
    /// `nil` for bucket-level calls.
    var key: String?
    /// Not yet encoded; a parameter without a value (`?uploads`) has `""`.
    var query: [(name: String, value: String)] = []
    /// Headers to sign and send, besides `Host` and the ones signing adds.
    var headers: [(name: String, value: String)] = []
    var body: HTTPClientRequest.Body?
    /// Hex SHA-256 of the body, or `UNSIGNED-PAYLOAD`.
    var payloadHash = SigV4Signer.emptyPayloadHash
    /// Code of a 404 without an error document (HEAD answers have no body).
    var notFound: S3Error.Code = .noSuchKey
    /// Whether the body is large: the upload timeout applies instead of the request timeout.
    var isUpload = false
    /// A call to the service itself (`ListBuckets`): no bucket.
    var isServiceCall = false
}
