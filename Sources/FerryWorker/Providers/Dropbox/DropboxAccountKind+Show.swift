import FerryStore

extension DropboxAccountKind {
    func shownFields(of account: AccountRecord) -> [AccountField] {
        AccountField.oauthClient(account, key: "app key", secret: "app secret") + [
            .url("api url", account.apiURL), .url("content url", account.contentURL), .url("authorize url", account.authorizeURL),
        ]
    }
}
