import Crypto
import Foundation

/// AWS Signature Version 4 with the `Authorization` header (`AWS4-HMAC-SHA256`).
///
/// S3 rules: the path is URI-encoded once and never normalized; query parameters are sorted by
/// encoded name, then value; header names are lower-cased and sorted, values trimmed with inner runs
/// of spaces collapsed. `x-amz-date`, `x-amz-content-sha256` (the payload's SHA-256 in hex, or
/// `UNSIGNED-PAYLOAD`) and, with temporary credentials, `x-amz-security-token` are added and signed.
/// Derived signing keys are cached per (day, region, service).
public struct SigV4Signer: Sendable {
    /// The keys requests are signed with.
    public let credentials: S3Credentials
    /// Signing region, e.g. `us-east-1`.
    public let region: String
    /// Signing service name: `s3`.
    public let service: String
    /// Whether `x-amz-content-sha256` is added and signed. S3 requires it; other services (and
    /// AWS's generic test suite) do without.
    public let addsContentSHA256Header: Bool
    let keyCache = SigningKeyCache()

    /// `payloadHash` value for a body that is not hashed before sending.
    public static let unsignedPayload = "UNSIGNED-PAYLOAD"
    /// SHA-256 of no bytes, the payload hash of requests without a body.
    public static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    public init(credentials: S3Credentials, region: String, service: String = "s3", addsContentSHA256Header: Bool = true) {
        self.credentials = credentials
        self.region = region
        self.service = service
        self.addsContentSHA256Header = addsContentSHA256Header
    }

    /// Signs one request.
    ///
    /// - Parameters:
    ///   - method: HTTP method, e.g. `GET`.
    ///   - path: the request path, not yet encoded (`/bucket/my key`); it is encoded exactly as the
    ///     URL built from the same path is.
    ///   - query: query parameters, not yet encoded; a parameter without a value has `""`.
    ///   - headers: every header to sign, `host` included (names in any case).
    ///   - payloadHash: hex SHA-256 of the body, or ``unsignedPayload``.
    ///   - date: signing time; S3 refuses requests more than 15 minutes off its clock.
    /// - Returns: the headers to add to the request, `Authorization` among them.
    public func sign(
        method: String, path: String, query: [(name: String, value: String)], headers: [(name: String, value: String)],
        payloadHash: String, date: Date
    ) -> SigV4Signature {
        let stamp = SigV4Date(date)
        var added: [(name: String, value: String)] = [("x-amz-date", stamp.timestamp)]
        if addsContentSHA256Header { added.append(("x-amz-content-sha256", payloadHash)) }
        if let token = credentials.sessionToken { added.append(("x-amz-security-token", token)) }

        // Lower-case names; repeated headers join their values with commas, in the order given.
        var canonical: [String: [String]] = [:]
        for (name, value) in headers + added {
            canonical[name.lowercased(), default: []].append(Self.canonicalValue(value))
        }
        let names = canonical.keys.sorted()
        let signedHeaders = names.joined(separator: ";")
        let headerBlock = names.map { "\($0):\(canonical[$0, default: []].joined(separator: ","))\n" }.joined()

        let canonicalRequest = [
            method.uppercased(),
            S3URIEncoding.encode(path.isEmpty ? "/" : path, keepSlash: true),
            S3URIEncoding.canonicalQuery(query),
            headerBlock,
            signedHeaders,
            payloadHash,
        ].joined(separator: "\n")

        let scope = "\(stamp.day)/\(region)/\(service)/aws4_request"
        let stringToSign = [
            "AWS4-HMAC-SHA256",
            stamp.timestamp,
            scope,
            Hex.encode(SHA256.hash(data: Array(canonicalRequest.utf8))),
        ].joined(separator: "\n")

        let key = signingKey(day: stamp.day)
        let signature = Hex.encode(HMAC<SHA256>.authenticationCode(for: Array(stringToSign.utf8), using: key))
        let authorization = "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), SignedHeaders=\(signedHeaders), Signature=\(signature)"
        return SigV4Signature(
            headers: added + [("Authorization", authorization)], authorization: authorization, scope: scope,
            signedHeaders: signedHeaders, signature: signature, canonicalRequest: canonicalRequest, stringToSign: stringToSign)
    }

    /// `HMAC(HMAC(HMAC(HMAC("AWS4" + secret, day), region), service), "aws4_request")`, computed
    /// once per day for each region and service.
    func signingKey(day: String) -> SymmetricKey {
        let cacheKey = "\(day)/\(region)/\(service)"
        if let key = keyCache.key(for: cacheKey) { return key }
        var key = SymmetricKey(data: Array(("AWS4" + credentials.secretAccessKey).utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Array(HMAC<SHA256>.authenticationCode(for: Array(part.utf8), using: key)))
        }
        keyCache.store(key, for: cacheKey)
        return key
    }

    /// Trimmed, with every run of spaces inside collapsed to one.
    static func canonicalValue(_ value: String) -> String {
        var out: [UInt8] = []
        var pendingSpace = false
        for byte in value.utf8 {
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") {
                pendingSpace = !out.isEmpty
            } else {
                if pendingSpace { out.append(UInt8(ascii: " ")) }
                pendingSpace = false
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
