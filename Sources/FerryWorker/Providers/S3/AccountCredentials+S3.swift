import FerryStore

extension AccountCredentials {
    /// The key pair (`access_key_id`, `secret_access_key`, and `session_token` for temporary credentials).
    var s3Keys: [String: String] {
        guard secrets.isEmpty, let legacySecret else { return secrets }
        return S3AccountKind.keys(fromLegacy: legacySecret) ?? [:]
    }
}
