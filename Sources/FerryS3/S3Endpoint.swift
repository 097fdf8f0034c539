import Foundation

/// The base URL of an S3-compatible service: AWS (`https://s3.REGION.amazonaws.com`), or a custom
/// server such as MinIO, Cloudflare R2 or moto.
public struct S3Endpoint: Sendable, Hashable, CustomStringConvertible {
    /// `http` or `https`.
    public let scheme: String
    /// Host name or IP address, without brackets for IPv6.
    public let host: String
    /// Explicit port, `nil` for the scheme's default.
    public let port: Int?

    /// Parses `scheme://host[:port]` (a trailing `/` is allowed; a path, query or user info is not,
    /// since the request path is the bucket and key).
    public init(url: String) throws(S3Error) {
        func refuse(_ why: String) -> S3Error {
            S3Error(code: .invalidArgument, operation: "Endpoint", message: "endpoint URL \(why)")
        }
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased() else {
            throw refuse("is not a URL")
        }
        guard scheme == "http" || scheme == "https" else { throw refuse("must start with http:// or https://") }
        guard let host = components.host, !host.isEmpty else { throw refuse("has no host") }
        guard components.user == nil, components.password == nil else { throw refuse("must not contain user info") }
        guard components.path.isEmpty || components.path == "/", components.query == nil, components.fragment == nil else {
            throw refuse("must not have a path, query or fragment")
        }
        if let port = components.port, !(1...65535).contains(port) { throw refuse("has an invalid port") }
        self.scheme = scheme
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        self.port = components.port
    }

    /// AWS's regional endpoint, `https://s3.REGION.amazonaws.com`.
    public static func aws(region: String) -> S3Endpoint {
        S3Endpoint(scheme: "https", host: "s3.\(region).amazonaws.com", port: nil)
    }

    init(scheme: String, host: String, port: Int?) {
        self.scheme = scheme
        self.host = host
        self.port = port
    }

    /// The `Host` header value for `host` (a bucket's virtual host or the endpoint's own), with the
    /// port only when it is not the scheme's default, as HTTP clients send it.
    func authority(host: String) -> String {
        let shown = host.contains(":") ? "[\(host)]" : host
        guard let port, port != (scheme == "https" ? 443 : 80) else { return shown }
        return "\(shown):\(port)"
    }

    /// `scheme://host[:port]`.
    public var url: String { "\(scheme)://\(authority(host: host))" }

    public var description: String { url }
}
