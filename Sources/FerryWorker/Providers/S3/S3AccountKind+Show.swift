import FerryStore

extension S3AccountKind {
    /// The key pair is sealed as one secret: the access key id is shown only as stored, like the secret key.
    func shownFields(of account: AccountRecord) -> [AccountField] {
        [
            .secret("access keys", isStored: account.hasSecrets),
            AccountField("region", account.settings["region"]?.stringValue ?? "-"),
            .url("endpoint url", account.settings["endpoint_url"]?.stringValue),
            AccountField("path style", account.settings["path_style"] == .bool(true) ? "yes" : "no"),
        ]
    }
}
