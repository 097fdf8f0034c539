import FerryStore

extension GoogleDriveAccountKind {
    func shownFields(of account: AccountRecord) -> [AccountField] {
        AccountField.oauthClient(account) + [.url("api url", account.apiURL)]
    }
}
