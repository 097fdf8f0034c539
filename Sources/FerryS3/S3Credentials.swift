/// The access key pair (and, for temporary credentials, the session token) requests are signed with.
///
/// Every text rendering (`description`, `debugDescription`, `dump`) shows the access key ID only:
/// the secret access key and the session token never appear in logs or error text.
public struct S3Credentials: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Public half of the key pair (`AKIA…`, `ASIA…` for temporary credentials); safe to show.
    public var accessKeyID: String
    /// Secret half of the key pair. Used only to derive signing keys.
    public var secretAccessKey: String
    /// STS session token of temporary credentials, sent as `x-amz-security-token`.
    public var sessionToken: String?

    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    /// The access key ID, with the secret and the session token redacted.
    public var description: String {
        "S3Credentials(accessKeyID: \(accessKeyID), secretAccessKey: [REDACTED]\(sessionToken == nil ? "" : ", sessionToken: [REDACTED]"))"
    }

    public var debugDescription: String { description }

    /// `dump` and `Mirror` see the redacted forms only.
    public var customMirror: Mirror {
        Mirror(self, children: [
            "accessKeyID": accessKeyID,
            "secretAccessKey": "[REDACTED]",
            "sessionToken": sessionToken == nil ? "nil" : "[REDACTED]",
        ])
    }

    /// Values scrubbed from anything a server echoes back.
    var secrets: [String] {
        [secretAccessKey] + (sessionToken.map { [$0] } ?? [])
    }
}
