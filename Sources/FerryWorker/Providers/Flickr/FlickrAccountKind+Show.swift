import FerryStore

extension FlickrAccountKind {
    func shownFields(of account: AccountRecord) -> [AccountField] {
        [
            .secret("api key", isStored: account.hasSecrets),
            .url("api url", account.apiURL), .url("photo url", account.contentURL),
        ]
    }
}
