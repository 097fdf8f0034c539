/// Where and how an ``S3Client`` talks to its service.
public struct S3Configuration: Sendable, Hashable {
    /// Signing region (`us-east-1`, `eu-central-1`; `auto` for Cloudflare R2).
    public var region: String
    /// Base URL of the service.
    public var endpoint: S3Endpoint
    /// Path-style or virtual-hosted URLs. With `.virtualHosted`, a bucket whose name is not a valid
    /// host label (upper case, `_`, or dots over HTTPS, which the certificate would not cover), or
    /// an endpoint given by IP address, is still addressed path-style.
    public var addressingStyle: S3AddressingStyle

    /// `endpoint` `nil` means AWS's regional endpoint; `addressingStyle` `nil` means virtual-hosted
    /// on AWS and path-style on a custom endpoint (what MinIO, moto and most self-hosted servers expect).
    public init(region: String, endpoint: S3Endpoint? = nil, addressingStyle: S3AddressingStyle? = nil) {
        self.region = region
        self.endpoint = endpoint ?? .aws(region: region)
        self.addressingStyle = addressingStyle ?? (endpoint == nil ? .virtualHosted : .path)
    }

    /// Whether `bucket` can be put in front of the endpoint's host name.
    func usesVirtualHost(for bucket: String) -> Bool {
        guard addressingStyle == .virtualHosted else { return false }
        // An IP address cannot take a bucket in front of it.
        if endpoint.host.contains(":") || endpoint.host.allSatisfy({ $0.isNumber || $0 == "." }) { return false }
        let bytes = Array(bucket.utf8)
        guard (3...63).contains(bytes.count) else { return false }
        // A dotted name would not match a `*.host` TLS certificate.
        if endpoint.scheme == "https" && bytes.contains(UInt8(ascii: ".")) { return false }
        let allowed = bytes.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
        }
        return allowed && bytes.first != UInt8(ascii: "-") && bytes.last != UInt8(ascii: "-")
    }
}
