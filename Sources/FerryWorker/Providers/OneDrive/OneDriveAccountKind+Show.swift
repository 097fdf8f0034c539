import FerryStore

extension OneDriveAccountKind {
    func shownFields(of account: AccountRecord) -> [AccountField] {
        AccountField.oauthClient(account) + [.url("api url", account.apiURL), .url("login url", account.authorizeURL)]
    }
}
