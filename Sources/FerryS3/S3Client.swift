import AsyncHTTPClient
import Logging

/// An HTTP client for S3 and S3-compatible services (MinIO, Cloudflare R2, moto), signing every
/// request with AWS Signature Version 4.
///
/// Stateless apart from its configuration, its credentials and a cache of derived signing keys;
/// calls throw ``S3Error`` only and never retry (the caller decides, see ``S3Error/disposition``).
/// Bodies stream in both directions: uploads take an `HTTPClientRequest.Body` of known length,
/// downloads hand the response body to the caller.
///
/// ```swift
/// let client = S3Client(httpClient: .shared, configuration: S3Configuration(region: "us-east-1"),
///                       credentials: credentials, logger: logger)
/// try await client.checkAccess(bucket: "photos")
/// let etag = try await client.putObject(bucket: "photos", key: "a/b.jpg", body: .bytes(buffer), length: Int64(buffer.readableBytes))
/// ```
public struct S3Client: Sendable {
    let httpClient: HTTPClient
    /// Region, endpoint and addressing style.
    public let configuration: S3Configuration
    let signer: SigV4Signer
    let logger: Logger
    /// Time allowed for a call without an upload body until the response head arrives, and again
    /// for reading an XML or error body. Download bodies are streamed by the caller and not limited here.
    public let requestTimeout: Duration
    /// Time allowed for `PutObject` and `UploadPart`, sending the body included.
    public let uploadTimeout: Duration

    /// Largest XML answer read into memory (a 1,000-part `ListParts` page is about 300 KB).
    static let maxXMLBytes = 16 * 1024 * 1024
    /// Largest error body read; anything longer is cut.
    static let maxErrorBytes = 256 * 1024

    public init(
        httpClient: HTTPClient, configuration: S3Configuration, credentials: S3Credentials, logger: Logger,
        requestTimeout: Duration = .seconds(120), uploadTimeout: Duration = .seconds(3600)
    ) {
        self.httpClient = httpClient
        self.configuration = configuration
        self.signer = SigV4Signer(credentials: credentials, region: configuration.region)
        self.logger = logger
        self.requestTimeout = requestTimeout
        self.uploadTimeout = uploadTimeout
    }

    /// The access key ID requests are signed with (safe to show).
    public var accessKeyID: String { signer.credentials.accessKeyID }
}
