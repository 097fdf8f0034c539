/// Where the bucket name goes in a request URL.
public enum S3AddressingStyle: String, Sendable, Hashable {
    /// `https://host/bucket/key`: MinIO, moto, most self-hosted servers, and buckets whose names
    /// are not valid host names.
    case path
    /// `https://bucket.host/key`: what AWS recommends (and requires for new features).
    case virtualHosted
}
