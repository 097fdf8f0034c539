/// The outcome of ``SigV4Signer/sign(method:path:query:headers:payloadHash:date:)``.
///
/// Its text renderings show the scope and the signed header names only: the signature and the
/// `Authorization` value are credentials for this request, and the canonical request contains the
/// session token of temporary credentials.
public struct SigV4Signature: Sendable, CustomStringConvertible, CustomReflectable {
    /// Headers to add to the request: `x-amz-date`, `x-amz-content-sha256`, `x-amz-security-token`
    /// when present, and `Authorization`.
    public let headers: [(name: String, value: String)]
    /// The `Authorization` header value. Never log it.
    public let authorization: String
    /// `DAY/REGION/SERVICE/aws4_request`.
    public let scope: String
    /// Lower-case names of the signed headers, `;`-separated.
    public let signedHeaders: String
    /// Hex signature. Never log it.
    let signature: String
    /// The canonical request that was hashed (may contain the session token).
    let canonicalRequest: String
    /// The string that was signed.
    let stringToSign: String

    public var description: String { "SigV4Signature(scope: \(scope), signedHeaders: \(signedHeaders))" }

    public var customMirror: Mirror {
        Mirror(self, children: ["scope": scope, "signedHeaders": signedHeaders])
    }
}
