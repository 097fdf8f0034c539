/// S3 accounts hold an access key pair (and an optional session token), sealed, plus the region, endpoint and
/// addressing style as settings. No OAuth link: usable as soon as they are added and checked.
struct S3AccountKind: AccountKind {
    var linkedWithoutLogin: Bool { true }
    var usesStoredSecretsOnly: Bool { true }
}
