import FerryStore

extension InstagramAccountKind {
    func shownFields(of account: AccountRecord) -> [AccountField] {
        [.url("api url", account.apiURL)]
    }
}
